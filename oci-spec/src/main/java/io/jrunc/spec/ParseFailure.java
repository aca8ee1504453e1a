package io.jrunc.spec;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.math.BigInteger;
import java.time.temporal.Temporal;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;

/**
 * Turns Jackson's exceptions into a {@link SpecException} whose path is the JSON path of the bad value
 * and whose problem is one short sentence, instead of Jackson's multi-line messages naming Java classes.
 */
final class ParseFailure {

    private ParseFailure() {
    }

    /** @param parser the parser that failed, still open and positioned at the offending token */
    static SpecException describe(JacksonException e, JsonParser parser) {
        JacksonException cause = e;
        // Databind wraps syntax errors met mid-object to add its path; the parser's own path is finer.
        while (cause instanceof JsonMappingException && cause.getCause() instanceof StreamReadException inner) {
            cause = inner;
        }
        if (cause instanceof JsonEOFException truncated) {
            // The whole document is cut short; the member last read is not where the problem is.
            return new SpecException("", "malformed JSON" + at(truncated.getLocation()) + ": unexpected end of input", e);
        }
        String problem = switch (cause) {
            case InputCoercionException range -> outOfRange(range, parser);
            case StreamReadException syntax ->
                    "malformed JSON" + at(syntax.getLocation()) + ": " + firstLine(syntax.getOriginalMessage());
            case UnsignedRangeException range -> range.getOriginalMessage();
            case InvalidNullException nul -> "must not be null";
            case InvalidFormatException format -> invalidValue(format);
            case MismatchedInputException mismatch -> mismatch(mismatch, parser);
            case ValueInstantiationException construction -> rootCauseMessage(construction);
            default -> firstLine(cause.getOriginalMessage());
        };
        String path = cause instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()
                ? mappingPath(mapping)
                : parserPath(parser);
        return new SpecException(path, problem, e);
    }

    /** Databind's path knows which members are map keys; it is empty for failures before any value. */
    private static String mappingPath(JsonMappingException e) {
        JsonPath path = JsonPath.ROOT;
        for (JsonMappingException.Reference reference : e.getPath()) {
            path = reference.getFieldName() != null
                    ? path.field(reference.getFieldName())
                    : path.index(reference.getIndex());
        }
        return path.toString();
    }

    /** Where the parser stands: each enclosing context contributes the member name or index it is at. */
    static String parserPath(JsonParser parser) {
        Deque<JsonStreamContext> outerFirst = new ArrayDeque<>();
        for (JsonStreamContext c = parser.getParsingContext(); c != null; c = c.getParent()) {
            outerFirst.push(c);
        }
        JsonPath path = JsonPath.ROOT;
        for (JsonStreamContext c : outerFirst) {
            if (c.inArray() && c.getEntryCount() > 0) {
                path = path.index(c.getCurrentIndex());
            } else if (c.inObject() && c.getCurrentName() != null) {
                path = path.field(c.getCurrentName());
            }
        }
        return path.toString();
    }

    private static String outOfRange(InputCoercionException e, JsonParser parser) {
        Class<?> target = e.getTargetType();
        String value = currentText(parser);
        if (target == Integer.class || target == int.class) {
            return "must be between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE + ", got " + value;
        }
        if (target == Long.class || target == long.class) {
            return "must be between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE + ", got " + value;
        }
        return "number out of range: " + value;
    }

    /** A value Jackson would not convert: a wrong JSON type, or a right type with a bad value. */
    private static String invalidValue(InvalidFormatException e) {
        String expected = expected(e.getTargetType());
        String actual = kind(e.getValue());
        if (!expected.equals(actual)) {
            return "expected " + expected + ", got " + actual;
        }
        Object value = e.getValue();
        return "invalid value " + (value instanceof String text ? "\"" + text + "\"" : String.valueOf(value));
    }

    private static String mismatch(MismatchedInputException e, JsonParser parser) {
        JsonToken token = parser.currentToken();
        if (token == null) {
            return "no JSON content";
        }
        return "expected " + expected(e.getTargetType()) + ", got " + kind(token);
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "a different value";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "boolean";
        }
        if (type == Integer.class || type == Long.class || type == BigInteger.class
                || type == int.class || type == long.class) {
            return "integer";
        }
        if (type == String.class || type.isEnum() || Temporal.class.isAssignableFrom(type)) {
            return "string";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "array";
        }
        return "object";
    }

    /** The JSON kind of the token a parser stands at, as messages name it. */
    static String kind(JsonToken token) {
        return switch (token) {
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT -> "integer";
            case VALUE_NUMBER_FLOAT -> "floating-point number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            case START_ARRAY, END_ARRAY -> "array";
            default -> "object";
        };
    }

    /** The JSON kind of a value Jackson already read. */
    private static String kind(Object value) {
        return switch (value) {
            case String s -> "string";
            case Boolean b -> "boolean";
            case Integer i -> "integer";
            case Long l -> "integer";
            case BigInteger b -> "integer";
            case Number n -> "floating-point number";
            case null -> "null";
            default -> "object";
        };
    }

    private static String currentText(JsonParser parser) {
        try {
            return parser.getText();
        } catch (IOException e) {
            return "?";
        }
    }

    private static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    private static String rootCauseMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : firstLine(cause.getMessage());
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "invalid JSON";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
