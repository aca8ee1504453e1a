package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The huge page sizes of this machine as cgroup file names spell them ({@code 2MB}, {@code 1GB}), from
 * /sys/kernel/mm/hugepages/hugepages-&lt;N&gt;kB, as runc's {@code HugePageSizes}.
 */
final class HugepageSizes {
    private HugepageSizes() {
    }

    static List<String> current() {
        List<String> sizes = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/sys/kernel/mm/hugepages"), "hugepages-*kB")) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                sizes.add(fromKilobytes(Long.parseLong(name.substring("hugepages-".length(), name.length() - 2))));
            }
        } catch (IOException | NumberFormatException e) {
            return List.of(); // no huge pages
        }
        sizes.sort(null);
        return sizes;
    }

    /** 2048 → "2MB", 1048576 → "1GB", 64 → "64KB" (binary units, as Go's units.CustomSize with %g). */
    static String fromKilobytes(long kilobytes) {
        String[] units = {"KB", "MB", "GB", "TB", "PB"};
        double size = kilobytes;
        int unit = 0;
        while (size >= 1024 && unit < units.length - 1) {
            size /= 1024;
            unit++;
        }
        String number = size == Math.rint(size) ? Long.toString((long) size) : Double.toString(size);
        return number + units[unit];
    }
}
