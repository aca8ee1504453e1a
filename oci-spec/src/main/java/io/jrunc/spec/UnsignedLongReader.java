package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.math.BigInteger;

/**
 * Reads a JSON integer in [0, 2^64-1] into a {@link Uint64} long. Anything else is an error at the
 * exact JSON path, as Go's decoder (and so runc) rejects it too.
 */
final class UnsignedLongReader extends StdDeserializer<Long> {

    private static final int UINT64_BITS = 64;

    UnsignedLongReader() {
        super(Long.class);
    }

    @Override
    public Long deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            return (Long) context.handleUnexpectedToken(Long.class, parser);
        }
        BigInteger value = parser.getBigIntegerValue();
        if (value.signum() < 0 || value.bitLength() > UINT64_BITS) {
            throw new UnsignedRangeException(parser, value);
        }
        return value.longValue();
    }
}
