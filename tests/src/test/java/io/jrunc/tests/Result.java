package io.jrunc.tests;

import java.util.List;

/** What one jrunc (or runc) invocation left: its exit code and both output streams. */
public record Result(List<String> command, int exitCode, String stdout, String stderr) {

    /** Fails with everything the caller needs to see unless the command exited 0. */
    public Result ok() {
        if (exitCode != 0) {
            throw new AssertionError(describe("expected exit 0"));
        }
        return this;
    }

    /** Fails unless the command exited with {@code code}. */
    public Result exit(int code) {
        if (exitCode != code) {
            throw new AssertionError(describe("expected exit " + code));
        }
        return this;
    }

    public String describe(String what) {
        return what + ", got " + exitCode + " from " + String.join(" ", command)
                + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
}
