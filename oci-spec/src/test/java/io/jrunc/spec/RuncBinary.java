package io.jrunc.spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The real runc, for tests that compare against it. CI installs it (apt-get install runc). */
final class RuncBinary {

    static final String MISSING = "runc, which these tests compare with: install the Debian package runc (`make deps` does)";

    private static final Pattern VERSION = Pattern.compile("runc version (\\d+)\\.(\\d+)");

    private final Path executable;

    private RuncBinary(Path executable) {
        this.executable = executable;
    }

    /** runc from PATH, or from the sbin directories a non-root PATH may lack. */
    static Optional<RuncBinary> find() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/local/sbin", "/usr/sbin", "/sbin"));
        return dirs.stream()
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, "runc"))
                .filter(Files::isExecutable)
                .findFirst()
                .map(RuncBinary::new);
    }

    /** runc 1.1 and older also fill the ambient capability set in {@code runc spec}. */
    boolean writesAmbientCapabilities() throws IOException, InterruptedException {
        Matcher m = VERSION.matcher(run(List.of("--version"), null));
        if (!m.find()) {
            throw new IOException("cannot parse runc --version");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major == 1 && minor < 2;
    }

    String run(List<String> args, Path workDir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        java.lang.Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        if (status != 0) {
            throw new IOException(command + " exited " + status + ": " + output);
        }
        return output;
    }
}
