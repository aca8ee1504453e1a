package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writes an instant as Go's {@code time.Time} marshals a UTC time (RFC 3339 with nanoseconds): the
 * fraction loses its trailing zeros and disappears when zero, e.g. {@code 2024-05-01T10:00:00.5Z}.
 * Java's ISO formatter would print {@code .500Z}.
 */
public final class GoTimeWriter extends StdSerializer<Instant> {

    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

    GoTimeWriter() {
        super(Instant.class);
    }

    public static String format(Instant instant) {
        StringBuilder text = new StringBuilder(SECONDS.format(instant));
        int nanos = instant.getNano();
        if (nanos > 0) {
            String fraction = String.format("%09d", nanos).replaceFirst("0+$", "");
            text.append('.').append(fraction);
        }
        return text.append('Z').toString();
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        gen.writeString(format(value));
    }
}
