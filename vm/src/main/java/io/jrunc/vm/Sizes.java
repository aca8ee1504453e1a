package io.jrunc.vm;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as podman's --memory reads them (docker/go-units RAMInBytes): a number, optionally with a
 * fraction, then an optional unit b, k, m, g, t, p with or without a trailing b, case-insensitive,
 * binary multiples (1k = 1024). "512m", "1.5G", "64kb", "4096" (bytes) all parse.
 */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgtp]?)(b?)",
            Pattern.CASE_INSENSITIVE);

    private Sizes() {
    }

    /**
     * @param what names the flag or field for the error message ("--memory")
     */
    public static long parse(String text, String what) throws VmException {
        Matcher m = SIZE.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new VmException("invalid size for " + what + ": \"" + text + "\" (expected a number with an optional unit b, k, m, g, t, e.g. 512m)");
        }
        long multiplier = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "" -> 1L;
            case "k" -> 1L << 10;
            case "m" -> 1L << 20;
            case "g" -> 1L << 30;
            case "t" -> 1L << 40;
            case "p" -> 1L << 50;
            default -> throw new IllegalStateException(m.group(2));
        };
        double value = Double.parseDouble(m.group(1)) * multiplier;
        if (value >= Long.MAX_VALUE) {
            throw new VmException("invalid size for " + what + ": \"" + text + "\" is too large");
        }
        return (long) value;
    }

    /** The largest unit that divides the size exactly: 536870912 is "512m". */
    public static String format(long bytes) {
        String[] units = {"p", "t", "g", "m", "k"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (5 - i));
            if (bytes >= unit && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
