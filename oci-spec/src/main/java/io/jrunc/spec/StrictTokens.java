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

    /**
     * The document's UTF-8 bytes, scanned as they are: a cold JVM interprets this class, and an array
     * access is one bytecode where String.charAt is a chain of calls (podman's 15 KB config with its
     * seccomp profile parsed ~1.5 ms faster so, and without decoding the whole document first).
     */
    private final byte[] b;
    private final int n;
    private int at;
    private final byte[] kinds = new byte[MAX_DEPTH];
    private final int[] counts = new int[MAX_DEPTH];
    private int depth;
    private boolean rootDone;
    private boolean valueAfterName;
    private JsonToken current;
    private String name;
    private String text;

    private StrictTokens(byte[] utf8) {
        this.b = utf8;
        this.n = utf8.length;
    }

    /** The tokens of {@code json}; {@link #REFUSED} when it does not survive UTF-8 (a lone surrogate). */
    static StrictTokens of(String json) {
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        if (!new String(utf8, StandardCharsets.UTF_8).equals(json)) {
            throw REFUSED;
        }
        return new StrictTokens(utf8);
    }

    /**
     * The tokens of {@code utf8}. Not decoded up front: outside strings only ASCII is JSON, so a byte
     * of 0x80 and up there is refused where it stands, and a string holding such bytes is decoded
     * alone, strictly ({@link #REFUSED} when it is not well-formed UTF-8).
     */
    static StrictTokens of(byte[] utf8) {
        return new StrictTokens(utf8);
    }

    @Override
    public JsonToken nextToken() {
        space();
        if (depth == 0) {
            if (rootDone) {
                if (at < n) {
                    throw REFUSED;
                }
                return current = null;
            }
            if (at >= n) {
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
        if (at >= n) {
            throw REFUSED;
        }
        char c = (char) (b[at] & 0xff);
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
        StringBuilder out = null; // only for a string with escapes: the common case is one copy of its bytes
        while (true) {
            int run = at;
            boolean ascii = true;
            while (at < n) {
                byte c = b[at];
                if (c == '"' || c == '\\' || (c >= 0 && c < 0x20)) {
                    break;
                }
                ascii &= c >= 0;
                at++;
            }
            if (at >= n) {
                throw REFUSED;
            }
            String part = text(run, at, ascii);
            byte end = b[at++];
            if (end == '"') {
                return checked(out == null ? part : out.append(part).toString());
            }
            if (end != '\\') {
                throw REFUSED; // a control character
            }
            if (out == null) {
                out = new StringBuilder();
            }
            out.append(part);
            if (at >= n) {
                throw REFUSED;
            }
            switch (b[at++]) {
                case '"' -> out.append('"');
                case '\\' -> out.append('\\');
                case '/' -> out.append('/');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    int code = 0;
                    for (int k = 0; k < 4; k++) {
                        int digit = at < n ? Character.digit((char) (b[at++] & 0xff), 16) : -1;
                        if (digit < 0) {
                            throw REFUSED;
                        }
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                }
                default -> throw REFUSED;
            }
        }
    }

    /** The text of bytes {@code from} to {@code to}: copied when ASCII, else decoded as strict UTF-8. */
    private String text(int from, int to, boolean ascii) {
        if (ascii) {
            return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, from, to - from))
                    .toString();
        } catch (CharacterCodingException e) {
            throw REFUSED;
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
        text = new String(b, start, at - start, StandardCharsets.ISO_8859_1);
        return integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    private boolean digits() {
        int start = at;
        while (at < n && b[at] >= '0' && b[at] <= '9') {
            at++;
        }
        return at > start;
    }

    private JsonToken literal(String word, JsonToken token) {
        for (int k = 0; k < word.length(); k++) {
            if (charAt(at + k) != word.charAt(k)) {
                throw REFUSED;
            }
        }
        if (Character.isLetterOrDigit(charAt(at + word.length()))) {
            throw REFUSED;
        }
        at += word.length();
        return token;
    }

    private void space() {
        while (at < n) {
            byte c = b[at];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private char peek() {
        return charAt(at);
    }

    /** The byte at {@code index} as a char (0x80 and up: never JSON's punctuation), 0 past the end. */
    private char charAt(int index) {
        return index < n ? (char) (b[index] & 0xff) : 0;
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

    /** A fraction or an exponent: jackson's to read (its double), so never taken here. */
    @Override
    public double getDoubleValue() {
        throw REFUSED;
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
