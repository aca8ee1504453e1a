package io.jrunc.spec;

/**
 * pids controller (config-linux.md, Pids). {@code limit} is required by spec 1.2 and optional from 1.3.
 *
 * @param limit maximum number of tasks; -1 means unlimited.
 */
public record LinuxPids(
        Long limit) {
}
