package io.jrunc.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine and a build can provide: an image, a tool, a device, a Debian
 * package, root. Under CI (the environment variable CI is {@code true}: `make test` on a fresh clone,
 * after `make deps` installed every package the tests use) nothing may be missing, so a missing
 * requirement fails the test; elsewhere it skips the test, so a machine without, say, qemu still runs
 * the rest. Either way the reason names what is missing and how to get it.
 *
 * <p>A reason no package or build step can change (the kernel's configuration, the CPU architecture)
 * is a {@link HostLimitation}, not a requirement.
 */
public final class Requirements {
    private Requirements() {}

    /** Whether this is a CI run: the environment variable CI is {@code true}. */
    public static boolean underCi() {
        return "true".equals(System.getenv("CI"));
    }

    /**
     * Returns when {@code met}; otherwise fails the test under CI and skips it elsewhere, with
     * {@code missing} as the reason: what is missing and how to get it.
     */
    public static void require(boolean met, String missing) {
        require(met, missing, underCi());
    }

    static void require(boolean met, String missing, boolean ci) {
        if (met) {
            return;
        }
        if (ci) {
            Assertions.fail("missing under CI=true, where nothing a test needs may be missing: " + missing);
        }
        Assumptions.abort("missing: " + missing);
    }

    /** Requires effective uid 0; {@code why} says what needs it. */
    public static void requireRoot(String why) {
        require(isRoot(), "root (" + why + "): run the tests as root, as `make test` in CI does");
    }

    /**
     * Requires every command on PATH (or in an sbin directory a non-root PATH lacks); {@code packages}
     * names the Debian packages that provide them.
     */
    public static void requireCommands(String packages, String... commands) {
        List<String> missing = new ArrayList<>();
        for (String c : commands) {
            if (which(c).isEmpty()) {
                missing.add(c);
            }
        }
        require(missing.isEmpty(), String.join(", ", missing) + " (not on PATH): install the Debian package(s) "
                + packages + " (`make deps` does)");
    }

    /** The executable {@code command} on PATH, else in the sbin and bin directories. */
    public static Optional<Path> which(String command) {
        Set<String> dirs = new LinkedHashSet<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"));
        for (String dir : dirs) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Whether this process's effective uid is 0 (/proc/self/status). */
    public static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                    .anyMatch(l -> l.split("\\s+")[2].equals("0"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
