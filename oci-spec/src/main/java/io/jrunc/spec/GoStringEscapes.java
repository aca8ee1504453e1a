package io.jrunc.spec;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;

/**
 * Escapes strings the way Go's encoding/json does, so text we write is byte-identical to runc's.
 * Go escapes {@code < > &} (HTML safety) and U+2028/U+2029 (JavaScript line separators), and writes
 * other control characters as lowercase hex escapes; Jackson does not escape the first two and writes
 * uppercase hex.
 */
final class GoStringEscapes extends CharacterEscapes {

    private static final long serialVersionUID = 1L;

    private final int[] asciiEscapes;

    GoStringEscapes() {
        asciiEscapes = standardAsciiEscapesForJSON();
        asciiEscapes['<'] = ESCAPE_CUSTOM;
        asciiEscapes['>'] = ESCAPE_CUSTOM;
        asciiEscapes['&'] = ESCAPE_CUSTOM;
        // \b \f \n \r \t keep Jackson's short forms, which Go uses as well.
        for (int c = 0; c < 0x20; c++) {
            if (asciiEscapes[c] == ESCAPE_STANDARD) {
                asciiEscapes[c] = ESCAPE_CUSTOM;
            }
        }
    }

    @Override
    public int[] getEscapeCodesForAscii() {
        return asciiEscapes;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
        return switch (ch) {
            case '<', '>', '&', 0x2028, 0x2029 -> unicodeEscape(ch);
            default -> ch < 0x20 ? unicodeEscape(ch) : null;
        };
    }

    private static SerializedString unicodeEscape(int ch) {
        return new SerializedString(String.format("\\u%04x", ch));
    }
}
