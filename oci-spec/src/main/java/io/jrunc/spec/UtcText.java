package io.jrunc.spec;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * An instant as {@link Instant#toString()} writes it ({@code 2026-12-05T10:37:24.123Z}: seconds
 * always, the fraction in groups of three digits, as many as it needs), written and read without
 * {@code DateTimeFormatter}. That formatter's class initializer builds a dozen formatters the first
 * time a JVM prints or parses an instant: 3-6 ms of a host call that reads a container's state
 * (`state`, `list`), more than 100 ms of a pod's first Create under emulation. Years 0 to 9999.
 */
public final class UtcText {
    private static final int SECONDS_PER_DAY = 86_400;

    private UtcText() {
    }

    /** {@code instant.toString()}. */
    public static String of(Instant instant) {
        StringBuilder text = seconds(instant);
        int nanos = instant.getNano();
        if (nanos > 0) {
            int digits = nanos % 1_000_000 == 0 ? 3 : nanos % 1000 == 0 ? 6 : 9;
            text.append('.').append(nineDigits(nanos), 0, digits);
        }
        return text.append('Z').toString();
    }

    /**
     * {@code yyyy-MM-ddTHH:mm:ss} in UTC, the part {@link #of} and {@link GoTime#format} share; the
     * caller appends the fraction and the zone.
     */
    static StringBuilder seconds(Instant instant) {
        long seconds = instant.getEpochSecond();
        int secondOfDay = (int) Math.floorMod(seconds, (long) SECONDS_PER_DAY);
        // LocalDate's own toString (yyyy-MM-dd) uses no formatter
        StringBuilder text = new StringBuilder(30)
                .append(LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY)))
                .append('T');
        twoDigits(text, secondOfDay / 3600).append(':');
        twoDigits(text, secondOfDay / 60 % 60).append(':');
        return twoDigits(text, secondOfDay % 60);
    }

    /** The nanoseconds as nine digits, leading zeros kept. */
    static String nineDigits(int nanos) {
        return Integer.toString(nanos + 1_000_000_000).substring(1);
    }

    /**
     * The instant {@code text} names: {@code yyyy-MM-ddTHH:mm:ss}, a fraction of 1 to 9 digits or none,
     * {@code Z}, read here; any other form {@link Instant#parse} reads (an offset, say).
     *
     * @throws DateTimeParseException if {@code text} is no instant
     */
    public static Instant parse(CharSequence text) {
        int n = text.length();
        if (n < 20 || n > 30 || text.charAt(n - 1) != 'Z' || text.charAt(4) != '-' || text.charAt(7) != '-'
                || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
            return Instant.parse(text);
        }
        int year = digits(text, 0, 4), month = digits(text, 5, 7), day = digits(text, 8, 10);
        int hour = digits(text, 11, 13), minute = digits(text, 14, 16), second = digits(text, 17, 19);
        int nanos = 0;
        if (n > 20) {
            int fraction = n - 21; // between '.' and 'Z'
            if (text.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                return Instant.parse(text);
            }
            nanos = digits(text, 20, n - 1);
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        } else if (text.charAt(19) != 'Z') {
            return Instant.parse(text);
        }
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59 || nanos < 0
                || day > LocalDate.of(year, month, 1).lengthOfMonth()) {
            return Instant.parse(text); // its error names what is wrong
        }
        long days = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(days * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nanos);
    }

    /** The decimal number of text[from, to), or -1 if any of them is not a digit. */
    private static int digits(CharSequence text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static StringBuilder twoDigits(StringBuilder text, int value) {
        return text.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }
}
