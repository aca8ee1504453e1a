package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One line of /proc/self/mountinfo, reduced to what locating cgroup hierarchies needs
 * (proc_pid_mountinfo(5)): the root of the mount within its filesystem, where it is mounted, the
 * filesystem type and the superblock options (for cgroup v1 these name the controllers, e.g.
 * {@code rw,cpu,cpuacct} or {@code rw,name=systemd}).
 */
record MountInfo(String root, Path mountPoint, String fsType, List<String> superOptions) {

    MountInfo {
        superOptions = List.copyOf(superOptions);
    }

    static List<MountInfo> parse(String text) throws CgroupException {
        List<MountInfo> mounts = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                mounts.add(parseLine(line));
            }
        }
        return mounts;
    }

    // "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
    // a variable number of optional fields ends at a lone "-".
    private static MountInfo parseLine(String line) throws CgroupException {
        List<String> fields = Arrays.asList(line.split(" "));
        int separator = fields.size() < 7 ? -1 : 6 + fields.subList(6, fields.size()).indexOf("-");
        if (separator < 6 || fields.size() < separator + 4) {
            throw new CgroupException("malformed mountinfo line: " + line);
        }
        return new MountInfo(
                unescape(fields.get(3)),
                Path.of(unescape(fields.get(4))),
                fields.get(separator + 1),
                Arrays.asList(fields.get(separator + 3).split(",")));
    }

    // The kernel writes space, tab, newline and backslash in paths as octal escapes (\040 etc.).
    private static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
