package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;

/**
 * The part of jackson-core's {@link JsonParser} that {@link SpecReader} uses, with the same names and
 * meaning, so the reader runs unchanged on jackson's parser or on {@link StrictTokens}.
 */
interface Tokens {
    JsonToken nextToken() throws IOException;

    JsonToken currentToken();

    String currentName() throws IOException;

    String getText() throws IOException;

    int getIntValue() throws IOException;

    long getLongValue() throws IOException;

    BigInteger getBigIntegerValue() throws IOException;

    double getDoubleValue() throws IOException;

    void skipChildren() throws IOException;

    String nextFieldName() throws IOException;

    /** jackson's parser, as the reference behind every error message. */
    record Jackson(JsonParser parser) implements Tokens {
        @Override
        public JsonToken nextToken() throws IOException {
            return parser.nextToken();
        }

        @Override
        public JsonToken currentToken() {
            return parser.currentToken();
        }

        @Override
        public String currentName() throws IOException {
            return parser.currentName();
        }

        @Override
        public String getText() throws IOException {
            return parser.getText();
        }

        @Override
        public int getIntValue() throws IOException {
            return parser.getIntValue();
        }

        @Override
        public long getLongValue() throws IOException {
            return parser.getLongValue();
        }

        @Override
        public BigInteger getBigIntegerValue() throws IOException {
            return parser.getBigIntegerValue();
        }

        @Override
        public double getDoubleValue() throws IOException {
            return parser.getDoubleValue();
        }

        @Override
        public void skipChildren() throws IOException {
            parser.skipChildren();
        }

        @Override
        public String nextFieldName() throws IOException {
            return parser.nextFieldName();
        }
    }
}
