package io.jrunc.vminit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether the JVM used the image's AOT cache of the agent's classes (docs/guest-init.md, "The image").
 * A JVM that rejects the cache (a class path or flag that differs from the dump's) boots on without
 * it, only slower, and says so nowhere Java can ask: /jrunc/args has it write its AOT log to
 * {@value #LOG}, read here before /tmp is mounted over. The cache's file among /proc/self/maps is no
 * evidence: a cache can be mapped and then given up.
 */
final class ClassDataArchive {
    private ClassDataArchive() {}

    /** Where scripts/vm-image.sh puts the cache, as -XX:AOTCache names it. */
    static final String PATH = "/jrunc/agent.aot";
    /** -Xlog:aot=info,cds=warning:file=..., in /jrunc/args. */
    static final String LOG = "/tmp/jrunc-cds.log";
    /** The JVM's last line about the cache once its classes are in use. */
    private static final String PASSED = "Using AOT-linked classes: true";

    /** "used", "rejected: <the JVM's first complaint>" or "none (...)"; call before EarlyMounts. */
    static String status() {
        return status(Path.of(LOG));
    }

    static String status(Path log) {
        List<String> lines;
        try {
            lines = Files.readAllLines(log);
        } catch (NoSuchFileException e) {
            return "none (no " + log + ": the image has no archive)";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        for (String line : lines) {
            if (line.contains("[warning]") || line.contains("[error")) {
                return "rejected: " + line;
            }
        }
        return lines.stream().anyMatch(l -> l.contains(PASSED)) ? "used" : "rejected: no \"" + PASSED + "\" in " + log;
    }
}
