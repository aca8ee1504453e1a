package io.jrunc.spec;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Times as Go writes them in runc's output ({@code time.RFC3339Nano}): the fraction of a second loses
 * its trailing zeros and disappears when zero, e.g. {@code 2024-05-01T10:00:00.5Z}, where Java's ISO
 * formatter would print {@code .500Z}. Used for {@link RuncState#created()} and {@code runc list}.
 */
public final class GoTime {

    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

    private GoTime() {
    }

    /** The UTC form runc prints, as Go formats {@code time.Now().UTC()}. */
    public static String format(Instant instant) {
        StringBuilder text = new StringBuilder(SECONDS.format(instant));
        int nanos = instant.getNano();
        if (nanos > 0) {
            text.append('.').append(String.format("%09d", nanos).replaceFirst("0+$", ""));
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
