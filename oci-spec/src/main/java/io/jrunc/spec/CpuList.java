package io.jrunc.spec;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The list syntax of cpuset files and of the spec's CPU and memory-node lists: comma-separated numbers
 * and ascending ranges, e.g. {@code 0-3,7}.
 */
final class CpuList {

    private static final Pattern ITEM = Pattern.compile("(\\d{1,9})(?:-(\\d{1,9}))?");

    private CpuList() {
    }

    static boolean isValid(String list) {
        for (String item : list.split(",", -1)) {
            Matcher m = ITEM.matcher(item);
            if (!m.matches()) {
                return false;
            }
            if (m.group(2) != null && Integer.parseInt(m.group(2)) < Integer.parseInt(m.group(1))) {
                return false;
            }
        }
        return true;
    }
}
