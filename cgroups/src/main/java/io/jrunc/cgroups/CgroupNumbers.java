package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Parsing of cgroupfs values: single numbers and "key value" lines. "max" reads as 2^64-1 (-1L), as runc. */
final class CgroupNumbers {
    private CgroupNumbers() {
    }

    static long parseUnsigned(String content, Path file) throws CgroupException {
        String text = content.trim();
        if (text.equals("max")) {
            return -1L;
        }
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            // v1 files print -1 as 9223372036854771712 etc., never negative; a negative is not expected
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException again) {
                throw new CgroupException("unable to parse " + file + ": " + text + " is not a number", e);
            }
        }
    }

    /** "key value" lines (memory.stat, cpu.stat, memory.events, ...); lines that do not parse are skipped. */
    static Map<String, Long> keyValues(String content) {
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : content.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 2) {
                try {
                    values.put(parts[0], parts[1].equals("max") ? -1L : Long.parseUnsignedLong(parts[1]));
                } catch (NumberFormatException ignored) {
                    // not a counter
                }
            }
        }
        return values;
    }
}
