package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonMappingException;
import java.math.BigInteger;

/** A number that does not fit a Go uint64; its own type so the loader can report it as-is. */
final class UnsignedRangeException extends JsonMappingException {

    UnsignedRangeException(JsonParser parser, BigInteger value) {
        super(parser, "must be between 0 and 18446744073709551615, got " + value);
    }
}
