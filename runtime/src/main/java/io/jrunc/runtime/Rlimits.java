package io.jrunc.runtime;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.ThreadCredentials;
import io.jrunc.spec.POSIXRlimit;
import java.util.List;
import java.util.Map;

/**
 * Sets process.rlimits on the container's process while it waits at a gate (create's, exec's). Resource limits
 * belong to the whole process, so the spawning thread cannot set them for its child without changing
 * the JVM's own; prlimit(2) on the child does it from outside instead. The kernel allows prlimit on
 * another process when the caller's real uid and gid equal the target's (or with CAP_SYS_RESOURCE,
 * which root lacks on some hosts), so a throwaway thread takes the process's uid and gid at that moment
 * as its real ids, keeping effective uid 0 and therefore its capabilities, then sets each limit.
 * Raising a hard limit still needs CAP_SYS_RESOURCE, exactly as for runc.
 */
final class Rlimits {
    private Rlimits() {}

    private static final Map<String, Integer> RESOURCES = Map.ofEntries(
            Map.entry("RLIMIT_CPU", 0), Map.entry("RLIMIT_FSIZE", 1), Map.entry("RLIMIT_DATA", 2),
            Map.entry("RLIMIT_STACK", 3), Map.entry("RLIMIT_CORE", 4), Map.entry("RLIMIT_RSS", 5),
            Map.entry("RLIMIT_NPROC", 6), Map.entry("RLIMIT_NOFILE", 7), Map.entry("RLIMIT_MEMLOCK", 8),
            Map.entry("RLIMIT_AS", 9), Map.entry("RLIMIT_LOCKS", 10), Map.entry("RLIMIT_SIGPENDING", 11),
            Map.entry("RLIMIT_MSGQUEUE", 12), Map.entry("RLIMIT_NICE", 13), Map.entry("RLIMIT_RTPRIO", 14),
            Map.entry("RLIMIT_RTTIME", 15));

    static int resource(String name) {
        Integer r = RESOURCES.get(name);
        if (r == null) {
            throw new ContainerException("wrong rlimit value: " + name);
        }
        return r;
    }

    static void apply(int pid, int uid, int gid, List<POSIXRlimit> rlimits) throws Exception {
        if (rlimits == null || rlimits.isEmpty()) {
            return;
        }
        Exception[] failure = new Exception[1];
        Thread t = Thread.ofPlatform().name("jrunc-rlimits").unstarted(() -> {
            try {
                ThreadCredentials.setresgid(gid, 0, 0);
                ThreadCredentials.setresuid(uid, 0, 0);
                for (POSIXRlimit r : rlimits) {
                    int resource = resource(r.type());
                    try {
                        Processes.prlimit(pid, resource, r.soft(), r.hard());
                    } catch (ErrnoException e) {
                        throw new ContainerException("error setting rlimit type " + resource + ": "
                                + io.jrunc.bindings.Errno.describe(e.errno()));
                    }
                }
            } catch (Exception e) {
                failure[0] = e;
            }
        });
        t.start();
        t.join();
        if (failure[0] != null) {
            throw failure[0];
        }
    }
}
