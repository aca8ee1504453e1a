package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigInteger;

/** Writes a {@link Uint64} long as the unsigned number it stands for. */
final class UnsignedLongWriter extends StdSerializer<Long> {

    UnsignedLongWriter() {
        super(Long.class);
    }

    @Override
    public void serialize(Long value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        if (value >= 0) {
            gen.writeNumber(value);
        } else {
            gen.writeNumber(new BigInteger(Long.toUnsignedString(value)));
        }
    }
}
