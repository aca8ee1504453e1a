package io.jrunc.spec;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Times as Go writes them in runc's output ({@code time.RFC3339Nano}): the fraction of a second loses
 * its trailing zeros and disappears when zero, e.g. {@code 2024-05-01T10:00:00.5Z}, where Java's ISO
 * formatter would print {@code .500Z}. Used for {@link RuncState#created()} and {@code runc list}.
 */
public final class GoTime {

    private GoTime() {
    }

    /** The UTC form runc prints, as Go formats {@code time.Now().UTC()}. */
    public static String format(Instant instant) {
        StringBuilder text = UtcText.seconds(instant);
        int nanos = instant.getNano();
        if (nanos > 0) {
            String digits = UtcText.nineDigits(nanos);
            int end = digits.length();
            while (digits.charAt(end - 1) == '0') {
                end--;
            }
            text.append('.').append(digits, 0, end);
        }
        return text.append('Z').toString();
    }

    /**
     * Reads an RFC 3339 time with any offset and up to nanosecond precision.
     *
     * @throws java.time.format.DateTimeParseException if {@code text} is not one
     */
    public static Instant parse(String text) {
        return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    }
}
