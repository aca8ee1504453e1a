package io.jrunc.tests.cgroups;

import io.jrunc.tests.Host;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A process's cgroup directories as the host sees them, worked out from the kernel alone (never from
 * the runtime's state): each line {@code N:controllers:/path} of /proc/PID/cgroup, joined to the
 * mount of that hierarchy in /proc/self/mountinfo (minus the mount's root).
 */
final class HostCgroups {
    /** hierarchy key ("memory", "cpu,cpuacct", "name=systemd", "" for cgroup2) → directory */
    private final Map<String, Path> dirs;

    private HostCgroups(Map<String, Path> dirs) {
        this.dirs = dirs;
    }

    static HostCgroups of(long pid) {
        String cgroup = Host.read(Path.of("/proc", Long.toString(pid), "cgroup"));
        if (cgroup == null) {
            throw new AssertionError("process " + pid + " is gone: no /proc/" + pid + "/cgroup");
        }
        List<String> mounts = Host.mountinfo();
        Map<String, Path> dirs = new LinkedHashMap<>();
        for (String line : cgroup.lines().toList()) {
            String[] f = line.split(":", 3);
            String key = f[1];
            String path = f[2];
            for (String m : mounts) {
                String[] parts = m.split(" - ", 2);
                String[] pre = parts[0].split(" ");
                String[] post = parts[1].split(" ");
                String root = pre[3];
                String mountPoint = pre[4];
                boolean match = key.isEmpty() ? post[0].equals("cgroup2")
                        : post[0].equals("cgroup") && Arrays.asList(post[2].split(",")).containsAll(List.of(key.split(",")));
                if (!match || !(path.equals(root) || path.startsWith(root.equals("/") ? "/" : root + "/"))) {
                    continue;
                }
                String rel = path.substring(root.equals("/") ? 1 : root.length()).replaceFirst("^/", "");
                dirs.put(key, Path.of(mountPoint).resolve(rel));
                break;
            }
        }
        return new HostCgroups(dirs);
    }

    /** The directory of the hierarchy that carries {@code controller}. */
    Path dir(String controller) {
        for (var e : dirs.entrySet()) {
            if (Arrays.asList(e.getKey().split(",")).contains(controller)) {
                return e.getValue();
            }
        }
        throw new AssertionError("no " + controller + " hierarchy in " + dirs);
    }

    String read(String controller, String file) {
        Path p = dir(controller).resolve(file);
        String s = Host.read(p);
        if (s == null) {
            throw new AssertionError("cannot read " + p);
        }
        return s.strip();
    }

    long number(String controller, String file) {
        return Long.parseLong(read(controller, file));
    }

    /** One {@code key value} line of a flat-keyed file such as cpu.stat or memory.oom_control. */
    long field(String controller, String file, String key) {
        for (String line : read(controller, file).lines().toList()) {
            String[] kv = line.split("\\s+");
            if (kv[0].equals(key)) {
                return Long.parseLong(kv[1]);
            }
        }
        throw new AssertionError("no " + key + " in " + dir(controller).resolve(file));
    }

    @Override
    public String toString() {
        return dirs.toString();
    }
}
