package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Reads an instant written in {@link GoTime}'s form (any RFC 3339 offset is accepted). */
final class GoTimeReader extends StdDeserializer<Instant> {

    GoTimeReader() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() != JsonToken.VALUE_STRING) {
            return (Instant) context.handleUnexpectedToken(Instant.class, parser);
        }
        String text = parser.getText();
        try {
            return GoTime.parse(text);
        } catch (DateTimeParseException e) {
            return (Instant) context.handleWeirdStringValue(Instant.class, text, "not an RFC 3339 time");
        }
    }
}
