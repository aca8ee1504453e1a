package io.jrunc.runtime.init;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds args[0] on the process's PATH the way runc does (exec.LookPath on the container's env), on
 * the calling thread, whose root is the container's by then. A missing program fails create with
 * runc's wording, which podman turns into exit code 127.
 */
public final class ExecutableLookup {
    private ExecutableLookup() {}

    public static String resolve(String program, List<String> env) {
        if (program.contains("/")) {
            // Go's findExecutable (runc 1.1): the stat error if stat fails, else "permission denied"
            // for a directory or a file without an execute bit. podman maps the first to exit 127 and
            // the second to 126.
            Path p = Path.of(program);
            if (!Files.exists(p)) {
                throw new ExecutableNotFound("exec: \"" + program + "\": stat " + program
                        + ": no such file or directory");
            }
            if (Files.isDirectory(p) || !Files.isExecutable(p)) {
                throw new ExecutableNotFound("exec: \"" + program + "\": permission denied");
            }
            return program;
        }
        String path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
        if (env != null) {
            for (String e : env) {
                if (e.startsWith("PATH=")) {
                    path = e.substring(5);
                }
            }
        }
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new ExecutableNotFound("exec: \"" + program + "\": executable file not found in $PATH");
    }

    /** The process's executable does not exist: runc reports this in create, callers map it to 127. */
    public static final class ExecutableNotFound extends RuntimeException {
        public ExecutableNotFound(String message) {
            super(message);
        }
    }
}
