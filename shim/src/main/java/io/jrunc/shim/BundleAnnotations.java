package io.jrunc.shim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code annotations} of a bundle's config.json, read by a small JSON reader of its own: {@code
 * start} runs for every container containerd creates and needs nothing else from the config, so it
 * loads no JSON library (a cold JVM pays tens of milliseconds for one). The reader accepts exactly
 * JSON; anything else is an {@link IllegalArgumentException} naming where.
 */
public final class BundleAnnotations {
    private final String text;
    private int pos;

    private BundleAnnotations(String text) {
        this.text = text;
    }

    /** The annotations of BUNDLE/config.json; empty when it has none. */
    public static Map<String, String> read(Path bundle) throws IOException {
        Path config = bundle.resolve("config.json");
        String text;
        try {
            text = Files.readString(config, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(config.toString(), null, "the bundle has no config.json");
        }
        return parse(text);
    }

    public static Map<String, String> parse(String json) {
        BundleAnnotations reader = new BundleAnnotations(json);
        Map<String, String> annotations = new HashMap<>();
        reader.skipSpace();
        reader.expect('{');
        reader.skipSpace();
        if (reader.peek() == '}') {
            reader.pos++;
        } else {
            while (true) {
                reader.skipSpace();
                String key = reader.string();
                reader.skipSpace();
                reader.expect(':');
                reader.skipSpace();
                if (key.equals("annotations") && reader.peek() == '{') {
                    annotations = reader.stringMap();
                } else {
                    reader.skipValue();
                }
                reader.skipSpace();
                if (reader.peek() == ',') {
                    reader.pos++;
                    continue;
                }
                reader.expect('}');
                break;
            }
        }
        reader.skipSpace();
        if (reader.pos != json.length()) {
            throw reader.error("unexpected content after the document");
        }
        return annotations;
    }

    private Map<String, String> stringMap() {
        Map<String, String> map = new HashMap<>();
        expect('{');
        skipSpace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            if (peek() != '"') {
                throw error("annotation " + key + " is not a string");
            }
            map.put(key, string());
            skipSpace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private void skipValue() {
        char c = peek();
        switch (c) {
            case '"' -> string();
            case '{', '[' -> {
                char close = c == '{' ? '}' : ']';
                pos++;
                skipSpace();
                if (peek() == close) {
                    pos++;
                    return;
                }
                while (true) {
                    skipSpace();
                    if (close == '}') {
                        string();
                        skipSpace();
                        expect(':');
                        skipSpace();
                    }
                    skipValue();
                    skipSpace();
                    if (peek() == ',') {
                        pos++;
                        continue;
                    }
                    expect(close);
                    return;
                }
            }
            default -> {
                int start = pos;
                while (pos < text.length() && "+-.0123456789eEtruefalsn".indexOf(text.charAt(pos)) >= 0) {
                    pos++;
                }
                String literal = text.substring(start, pos);
                if (literal.isEmpty() || !(literal.equals("true") || literal.equals("false") || literal.equals("null")
                        || literal.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))) {
                    throw error("bad value");
                }
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void skipSpace() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("config.json: " + what + " at offset " + pos);
    }
}
