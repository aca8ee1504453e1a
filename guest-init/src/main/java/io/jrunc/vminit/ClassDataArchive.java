package io.jrunc.vminit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether the JVM used the image's archive of the agent's classes (docs/guest-init.md, "The image").
 * A JVM that rejects the archive (a class path, jar time stamp or flag that differs from the dump's)
 * boots on without it, only slower, and says so nowhere Java can ask: /jrunc/args has it write its
 * class path check and CDS warnings to {@value #LOG}, read here before /tmp is mounted over. The
 * archive's file among /proc/self/maps is no evidence: a rejected top archive stays mapped.
 */
final class ClassDataArchive {
    private ClassDataArchive() {}

    /** Where scripts/vm-image.sh puts the archive, as -XX:SharedArchiveFile names it. */
    static final String PATH = "/jrunc/agent.jsa";
    /** -Xlog:class+path=info,cds=warning,cds+dynamic=warning:file=..., in /jrunc/args. */
    static final String LOG = "/tmp/jrunc-cds.log";
    private static final String PASSED = "Archived app classpath validation: passed";

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
