package io.jrunc.runtime;

import java.time.Instant;
import java.time.LocalDate;

/**
 * An instant as {@link Instant#toString()} writes it ({@code 2026-12-05T10:37:24.123Z}: seconds
 * always, the fraction in groups of three digits, as many as it needs), made without
 * {@code DateTimeFormatter}. That formatter's class initializer builds a dozen formatters the first
 * time any JVM prints an instant: a few milliseconds on a host, more than 100 ms in a pod's agent
 * under emulation, once per container state written by a fresh JVM. Years 0 to 9999.
 */
final class UtcText {
    private static final int SECONDS_PER_DAY = 86_400;

    private UtcText() {
    }

    static String of(Instant instant) {
        long seconds = instant.getEpochSecond();
        int secondOfDay = (int) Math.floorMod(seconds, (long) SECONDS_PER_DAY);
        // LocalDate's own toString (yyyy-MM-dd) uses no formatter
        StringBuilder text = new StringBuilder(30)
                .append(LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY)))
                .append('T');
        twoDigits(text, secondOfDay / 3600).append(':');
        twoDigits(text, secondOfDay / 60 % 60).append(':');
        twoDigits(text, secondOfDay % 60);
        int nanos = instant.getNano();
        if (nanos > 0) {
            int digits = nanos % 1_000_000 == 0 ? 3 : nanos % 1000 == 0 ? 6 : 9;
            String padded = Integer.toString(nanos + 1_000_000_000).substring(1); // nine digits
            text.append('.').append(padded, 0, digits);
        }
        return text.append('Z').toString();
    }

    private static StringBuilder twoDigits(StringBuilder text, int value) {
        return text.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }
}
