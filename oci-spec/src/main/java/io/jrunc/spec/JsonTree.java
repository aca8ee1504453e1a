package io.jrunc.spec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON (RFC 8259) reader for the small state files jrunc and jrunc-vm write themselves (jrunc's
 * state.json, jrunc-vm's pod.json and container.json), giving maps, lists, strings, longs, doubles,
 * booleans and nulls, and the string quoting their writer needs. Every call of either CLI reads
 * state; jackson-core's parser costs a cold JVM about 20 ms before it reads a byte, nearly all of it
 * the static initialization of BigDecimal its base class pulls in (JDK 25's squares its way to
 * 5^65536; docs/PERFORMANCE.md). Configs, which come from users and need JSON-path error messages,
 * stay with the spec reader.
 */
public final class JsonTree {
    private final String text;
    private int at;

    private JsonTree(String text) {
        this.text = text;
    }

    /** The document's value; IllegalArgumentException names the offset of the first problem. */
    public static Object parse(byte[] utf8) {
        JsonTree p = new JsonTree(new String(utf8, StandardCharsets.UTF_8));
        p.space();
        Object value = p.value();
        p.space();
        if (p.at != p.text.length()) {
            throw p.error("unexpected content after the document");
        }
        return value;
    }

    /** {@code value} as a JSON string literal: quotes, backslashes and control characters escaped. */
    public static StringBuilder quote(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    private Object value() {
        if (at >= text.length()) {
            throw error("unexpected end of input");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw error("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        space();
        if (peek() == '}') {
            at++;
            return members;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw error("expected a member name");
            }
            String name = string();
            space();
            expect(':');
            space();
            members.put(name, value());
            space();
            if (peek() == ',') {
                at++;
                continue;
            }
            expect('}');
            return members;
        }
    }

    private List<Object> array() {
        List<Object> items = new ArrayList<>();
        at++;
        space();
        if (peek() == ']') {
            at++;
            return items;
        }
        while (true) {
            space();
            items.add(value());
            space();
            if (peek() == ',') {
                at++;
                continue;
            }
            expect(']');
            return items;
        }
    }

    private String string() {
        at++;
        StringBuilder s = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return s.toString();
            }
            if (c < 0x20) {
                throw error("control character in string");
            }
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> s.append(e);
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'n' -> s.append('\n');
                case 'r' -> s.append('\r');
                case 't' -> s.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        s.append((char) Integer.parseInt(text, at, at + 4, 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    at += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = at;
        boolean integral = true;
        if (peek() == '-') {
            at++;
        }
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                at++;
            } else {
                break;
            }
        }
        String n = text.substring(start, at);
        try {
            return integral ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
        } catch (NumberFormatException e) {
            throw error("bad number " + n);
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("unexpected character '" + text.charAt(at) + "'");
        }
        at += word.length();
        return value;
    }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : 0;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException(problem + " at offset " + at);
    }
}
