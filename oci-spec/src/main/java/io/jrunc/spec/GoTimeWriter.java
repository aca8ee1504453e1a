package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;

/** Writes an instant in {@link GoTime}'s form. */
final class GoTimeWriter extends StdSerializer<Instant> {

    GoTimeWriter() {
        super(Instant.class);
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        gen.writeString(GoTime.format(value));
    }
}
