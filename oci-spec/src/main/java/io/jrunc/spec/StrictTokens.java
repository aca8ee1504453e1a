package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonToken;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A strict JSON (RFC 8259) tokenizer for the common case of a well-formed document, tried before
 * jackson-core's parser: creating that parser initializes BigDecimal, whose static initializer in
 * JDK 25 squares its way to 5^65536 and costs a cold JVM about 10 ms (docs/PERFORMANCE.md), and every
 * create, run and exec reads a config.
 *
 * <p>It accepts a subset of what jackson's default parser accepts and yields the same tokens for it.
 * Anything else (malformed UTF-8, a byte-order mark, comments, a number out of range, a document nested
 * deeper or a string longer than jackson's limits, ...) throws {@link #REFUSED}, and {@link SpecReader}
 * reads the document again with jackson, which accepts it or words the error. So errors always come from
 * jackson, and this class only has to be right about documents it accepts.
 */
final class StrictTokens implements Tokens {
    /** Not for this tokenizer: let jackson decide. Carries no stack trace, it is control flow. */
    static final RuntimeException REFUSED = new RuntimeException("left to jackson", null, false, false) { };

    // jackson-core's StreamReadConstraints defaults, kept under so that nothing accepted here fails there
    private static final int MAX_DEPTH = 500;
    private static final int MAX_NUMBER_LENGTH = 1000;
    private static final int MAX_STRING_LENGTH = 1_000_000;
    private static final int MAX_NAME_LENGTH = 10_000;

    private static final byte OBJECT = 1, ARRAY = 2;

    private final String s;
    private int at;
    private final byte[] kinds = new byte[MAX_DEPTH];
    private final int[] counts = new int[MAX_DEPTH];
    private int depth;
    private boolean rootDone;
    private boolean valueAfterName;
    private JsonToken current;
    private String name;
    private String text;

    private StrictTokens(String s) {
        this.s = s;
    }

    static StrictTokens of(String json) {
        return new StrictTokens(json);
    }

    /** The tokens of {@code utf8}; {@link #REFUSED} when it is not well-formed UTF-8. */
    static StrictTokens of(byte[] utf8) {
        try {
            return new StrictTokens(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8)).toString());
        } catch (CharacterCodingException e) {
            throw REFUSED;
        }
    }

    @Override
    public JsonToken nextToken() {
        space();
        if (depth == 0) {
            if (rootDone) {
                if (at < s.length()) {
                    throw REFUSED;
                }
                return current = null;
            }
            if (at >= s.length()) {
                throw REFUSED;
            }
            return current = value();
        }
        int level = depth - 1;
        if (kinds[level] == OBJECT) {
            if (valueAfterName) {
                expect(':');
                space();
                valueAfterName = false;
                return current = value();
            }
            if (peek() == '}') {
                at++;
                close();
                return current = JsonToken.END_OBJECT;
            }
            if (counts[level]++ > 0) {
                expect(',');
                space();
            }
            if (peek() != '"') {
                throw REFUSED;
            }
            name = string();
            if (name.length() > MAX_NAME_LENGTH) {
                throw REFUSED;
            }
            valueAfterName = true;
            return current = JsonToken.FIELD_NAME;
        }
        if (peek() == ']') {
            at++;
            close();
            return current = JsonToken.END_ARRAY;
        }
        if (counts[level]++ > 0) {
            expect(',');
            space();
        }
        return current = value();
    }

    private JsonToken value() {
        if (at >= s.length()) {
            throw REFUSED;
        }
        char c = s.charAt(at);
        JsonToken token;
        switch (c) {
            case '{' -> {
                at++;
                open(OBJECT);
                return JsonToken.START_OBJECT;
            }
            case '[' -> {
                at++;
                open(ARRAY);
                return JsonToken.START_ARRAY;
            }
            case '"' -> {
                text = string();
                token = JsonToken.VALUE_STRING;
            }
            case 't' -> token = literal("true", JsonToken.VALUE_TRUE);
            case 'f' -> token = literal("false", JsonToken.VALUE_FALSE);
            case 'n' -> token = literal("null", JsonToken.VALUE_NULL);
            default -> token = number();
        }
        if (depth == 0) {
            rootDone = true;
        }
        return token;
    }

    private void open(byte kind) {
        if (depth == MAX_DEPTH) {
            throw REFUSED;
        }
        kinds[depth] = kind;
        counts[depth] = 0;
        depth++;
    }

    private void close() {
        depth--;
        if (depth == 0) {
            rootDone = true;
        }
    }

    private String string() {
        at++; // the opening quote
        int start = at;
        // the common case, no escapes: one substring
        while (at < s.length()) {
            char c = s.charAt(at);
            if (c == '"') {
                return checked(s.substring(start, at++));
            }
            if (c == '\\' || c < 0x20) {
                break;
            }
            at++;
        }
        StringBuilder b = new StringBuilder().append(s, start, at);
        while (true) {
            if (at >= s.length()) {
                throw REFUSED;
            }
            char c = s.charAt(at++);
            if (c == '"') {
                return checked(b.toString());
            }
            if (c < 0x20) {
                throw REFUSED;
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (at >= s.length()) {
                throw REFUSED;
            }
            switch (s.charAt(at++)) {
                case '"' -> b.append('"');
                case '\\' -> b.append('\\');
                case '/' -> b.append('/');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    int code = 0;
                    for (int k = 0; k < 4; k++) {
                        int digit = at < s.length() ? Character.digit(s.charAt(at++), 16) : -1;
                        if (digit < 0) {
                            throw REFUSED;
                        }
                        code = code * 16 + digit;
                    }
                    b.append((char) code);
                }
                default -> throw REFUSED;
            }
        }
    }

    private static String checked(String value) {
        if (value.length() > MAX_STRING_LENGTH) {
            throw REFUSED;
        }
        return value;
    }

    /** RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    private JsonToken number() {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        if (peek() == '0') {
            at++;
        } else if (!digits()) {
            throw REFUSED;
        }
        boolean integral = true;
        if (peek() == '.') {
            at++;
            integral = false;
            if (!digits()) {
                throw REFUSED;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            integral = false;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            if (!digits()) {
                throw REFUSED;
            }
        }
        if (at - start > MAX_NUMBER_LENGTH) {
            throw REFUSED;
        }
        char next = peek();
        if (Character.isLetterOrDigit(next) || next == '.' || next == '-' || next == '+') {
            throw REFUSED; // "01", "1a": jackson refuses these
        }
        text = s.substring(start, at);
        return integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    private boolean digits() {
        int start = at;
        while (at < s.length() && s.charAt(at) >= '0' && s.charAt(at) <= '9') {
            at++;
        }
        return at > start;
    }

    private JsonToken literal(String word, JsonToken token) {
        if (!s.startsWith(word, at) || Character.isLetterOrDigit(charAt(at + word.length()))) {
            throw REFUSED;
        }
        at += word.length();
        return token;
    }

    private void space() {
        while (at < s.length()) {
            char c = s.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private char peek() {
        return charAt(at);
    }

    private char charAt(int index) {
        return index < s.length() ? s.charAt(index) : 0;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw REFUSED;
        }
        at++;
    }

    @Override
    public JsonToken currentToken() {
        return current;
    }

    @Override
    public String currentName() {
        if (current != JsonToken.FIELD_NAME) {
            throw REFUSED; // the reader asks only there; anything else is jackson's to answer
        }
        return name;
    }

    @Override
    public String getText() {
        if (current == JsonToken.VALUE_STRING) {
            return text;
        }
        if (current == JsonToken.FIELD_NAME) {
            return name;
        }
        throw REFUSED;
    }

    @Override
    public int getIntValue() {
        try {
            return Integer.parseInt(integerText());
        } catch (NumberFormatException e) {
            throw REFUSED;
        }
    }

    @Override
    public long getLongValue() {
        try {
            return Long.parseLong(integerText());
        } catch (NumberFormatException e) {
            throw REFUSED;
        }
    }

    @Override
    public BigInteger getBigIntegerValue() {
        return new BigInteger(integerText());
    }

    private String integerText() {
        if (current != JsonToken.VALUE_NUMBER_INT) {
            throw REFUSED;
        }
        return text;
    }

    @Override
    public void skipChildren() {
        if (current != JsonToken.START_OBJECT && current != JsonToken.START_ARRAY) {
            return;
        }
        int level = depth;
        while (depth >= level) {
            nextToken();
        }
    }

    @Override
    public String nextFieldName() {
        return nextToken() == JsonToken.FIELD_NAME ? name : null;
    }
}
