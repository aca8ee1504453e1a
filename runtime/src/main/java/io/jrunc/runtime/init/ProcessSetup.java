package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.spec.Process;
import io.jrunc.spec.User;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The config's process turned into what the spawning thread needs, resolved on that thread (its root
 * is the container's by then): the executable found on the container's PATH, the working directory
 * (a container's own process has it created if missing, with Go's MkdirAll's errors, as runc does; an
 * exec's must exist: runc's exec only changes into it), the identity to switch to, and HOME when the
 * config does not set it (as runc does: the user's home from the container's /etc/passwd, else /). The
 * child enters the working directory itself (ChainSpawn), for create once the root is final.
 */
public record ProcessSetup(SpawnRequest request, ProcessCredentials credentials) {

    private static final int DEFAULT_UMASK = 0022;

    /** The same process with explicit standard streams ({@link SpawnRequest.Stdio}). */
    public ProcessSetup withStdio(SpawnRequest.Stdio stdio) {
        return new ProcessSetup(request.withStdio(stdio), credentials);
    }

    /**
     * A container's own process: its working directory is created if missing, as runc does.
     *
     * @param procDestinations where procfs will be mounted once the child exists: a working directory
     *        below one is not made here, in the placeholder that holds its place, but left to the
     *        child's chdir in the real procfs, which says why it fails (procfs has no mkdir anyway)
     */
    public static ProcessSetup of(Process process, int preserveFds, List<String> procDestinations) {
        return of(process, preserveFds, true, procDestinations);
    }

    /**
     * An exec'd process: its working directory must be a directory already. A missing one fails as
     * chdir(2) fails, ENOENT, which callers such as podman report as not found (127); anything else
     * that is no directory, ENOTDIR.
     */
    public static ProcessSetup forExec(Process process, int preserveFds) {
        return of(process, preserveFds, false, List.of());
    }

    private static ProcessSetup of(Process process, int preserveFds, boolean makeCwd, List<String> procDestinations) {
        if (process == null || process.args() == null || process.args().isEmpty()) {
            throw new IllegalArgumentException("process.args: must not be empty");
        }
        String cwd = process.cwd() == null || process.cwd().isEmpty() ? "/" : process.cwd();
        if (makeCwd) {
            if (!below(cwd, procDestinations)) {
                mkdirAll(cwd);
            }
        } else if (!Files.isDirectory(Path.of(cwd))) {
            throw new ErrnoException("chdir", Files.exists(Path.of(cwd)) ? Errno.ENOTDIR : Errno.ENOENT, cwd);
        }
        String path = ExecutableLookup.resolve(process.args().getFirst(), process.env());
        User user = process.user();
        int uid = user == null || user.uid() == null ? 0 : user.uid().intValue();
        int gid = user == null || user.gid() == null ? 0 : user.gid().intValue();
        int umask = user == null || user.umask() == null ? DEFAULT_UMASK : user.umask().intValue();
        List<Long> extra = user == null || user.additionalGids() == null ? List.of() : user.additionalGids();
        int[] groups = extra.stream().mapToInt(Long::intValue).toArray();
        int[] kept = SetgroupsDenial.keptGroups();
        if (kept != null) {
            // A user namespace whose setgroups says "deny" (a single-id map made without privilege)
            // lets no one change the supplementary groups: the process keeps the runtime's, as with
            // runc, and the chain's setgroups (refused) leaves them as they are.
            if (groups.length > 0) {
                throw new IllegalArgumentException("process.user.additionalGids: cannot be set: setgroups is denied"
                        + " in this user namespace (/proc/self/setgroups reads \"deny\")");
            }
            groups = kept;
        }
        SpawnRequest request = new SpawnRequest(path, process.args(),
                withHome(process.env() == null ? List.of() : process.env(), uid), cwd, umask, preserveFds,
                Boolean.TRUE.equals(process.terminal()), SpawnRequest.Stdio.INHERIT);
        ProcessCredentials credentials = new ProcessCredentials(uid, gid, groups, process.capabilities(),
                Boolean.TRUE.equals(process.noNewPrivileges()));
        return new ProcessSetup(request, credentials);
    }

    /**
     * Go's os.MkdirAll(path, 0755), which runc's init runs for the working directory, with its errors:
     * an existing non-directory is "mkdir /probe: not a directory", also as the parent of a missing
     * directory ("/probe/below" names /probe); a mkdir that fails names its path and errno. Relative to
     * the calling thread's root, the container's.
     */
    static void mkdirAll(String path) {
        Path p = Path.of(path);
        if (Files.isDirectory(p)) {
            return;
        }
        if (Files.exists(p)) {
            throw new ErrnoException("mkdir", Errno.ENOTDIR, path);
        }
        Path parent = p.getParent();
        if (parent != null && parent.getNameCount() > 0) {
            mkdirAll(parent.toString());
        }
        try {
            FileDescriptors.mkdir(path, 0755);
        } catch (ErrnoException e) {
            if (!Files.isDirectory(p)) { // "foo/." and a concurrent mkdir end here too
                throw e;
            }
        }
    }

    /** Whether {@code path} is one of {@code dirs} or below one, by its words (the container's paths). */
    static boolean below(String path, List<String> dirs) {
        Path p = Path.of(path).normalize();
        for (String dir : dirs) {
            if (p.startsWith(Path.of(dir).normalize())) {
                return true;
            }
        }
        return false;
    }

    /** {@code env} with HOME added, or replaced when empty, as runc's init does. */
    static List<String> withHome(List<String> env, int uid) {
        if (env.stream().anyMatch(e -> e.startsWith("HOME=") && e.length() > 5)) {
            return env;
        }
        List<String> out = new ArrayList<>(env.stream().filter(e -> !e.equals("HOME=")).toList());
        out.add("HOME=" + home(uid));
        return List.copyOf(out);
    }

    /** The home directory of {@code uid} in /etc/passwd (the container's, on the spawning thread), else "/". */
    private static String home(int uid) {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
                String[] f = line.split(":", -1);
                if (f.length >= 6 && f[2].equals(Integer.toString(uid)) && !f[5].isEmpty()) {
                    return f[5];
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // no or unreadable passwd: runc falls back to / as well
        }
        return "/";
    }
}
