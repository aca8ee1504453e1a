package io.jrunc.spec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The one Jackson configuration used for every OCI document, so config.json, state and features are
 * read and written the same way everywhere.
 *
 * <p>Reading follows Go's encoding/json as runc uses it: unknown members are ignored (the spec's
 * extensibility rule, and what runc does), duplicate members keep the last value, and values of the
 * wrong JSON type are errors rather than being coerced ({@code "terminal": "true"} is rejected, as in
 * Go). Member names are matched exactly; Go's case-insensitive fallback is not reproduced.
 *
 * <p>Writing matches Go's output byte for byte: members in the spec's (Go struct) order, absent values
 * omitted, map keys sorted, Go's string escaping, and {@link #writeIndented} laying text out like
 * {@code json.MarshalIndent}. Empty lists and maps that were present in the input are kept (Go would
 * drop them), so a parse/write round trip loses nothing.
 *
 * <p>{@link #read} is databind and the reference for {@link SpecReader}, the databind-free reader that
 * {@link SpecLoader} uses for start-up time; likewise {@link #write} and {@link #writeIndented} hand the
 * small documents every command prints to {@link DocumentWriter}. The mapper is built on first use.
 */
public final class Json {

    /** Indent of {@code runc spec}'s config.json. */
    public static final String SPEC_INDENT = "\t";
    /** Indent of {@code runc state}. */
    public static final String STATE_INDENT = "  ";
    /** Indent of {@code runc features}. */
    public static final String FEATURES_INDENT = "    ";

    private Json() {
    }

    /**
     * Built on first use, not when this class loads: building it loads much of databind, and the documents
     * read and written on every command ({@link SpecReader}, {@link DocumentWriter}) never need it.
     */
    private static final class Mapper {
        static final ObjectMapper INSTANCE = createMapper();
    }

    private static ObjectMapper createMapper() {
        JsonFactory factory = new JsonFactoryBuilder().characterEscapes(new GoStringEscapes()).build();
        // A null inside a list or map has no meaning in the spec; fail at its path instead of later.
        JsonSetter.Value nullContentFails = JsonSetter.Value.forContentNulls(Nulls.FAIL);
        return JsonMapper.builder(factory)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .withCoercionConfig(LogicalType.Textual, textual -> textual
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .withConfigOverride(List.class, list -> list.setSetterInfo(nullContentFails))
                .withConfigOverride(Map.class, map -> map.setSetterInfo(nullContentFails))
                .defaultPropertyInclusion(JsonInclude.Value.construct(
                        JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS))
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .build();
    }

    /** A reader with this configuration, for types outside this module that follow the same rules. */
    public static ObjectReader reader() {
        return Mapper.INSTANCE.reader();
    }

    /** A compact writer with this configuration. */
    public static ObjectWriter writer() {
        return Mapper.INSTANCE.writer();
    }

    /**
     * Parses one JSON document; any failure names the JSON path, e.g. {@code process.args[1]: expected
     * string, got integer}. No validation: see {@link SpecValidator}.
     */
    public static <T> T read(String json, Class<T> type) throws SpecException {
        try (JsonParser parser = Mapper.INSTANCE.createParser(json)) {
            return read(parser, type);
        } catch (IOException e) {
            throw new SpecException("", "cannot read JSON: " + e.getMessage(), e);
        }
    }

    /** As {@link #read(String, Class)}, from UTF-8 bytes. */
    public static <T> T read(byte[] json, Class<T> type) throws SpecException {
        try (JsonParser parser = Mapper.INSTANCE.createParser(json)) {
            return read(parser, type);
        } catch (IOException e) {
            throw new SpecException("", "cannot read JSON: " + e.getMessage(), e);
        }
    }

    /** The parser stays open until the failure is described: its position is the best evidence. */
    private static <T> T read(JsonParser parser, Class<T> type) throws SpecException, IOException {
        T document;
        try {
            document = Mapper.INSTANCE.readValue(parser, type);
            if (parser.nextToken() != null) {
                // Checked here rather than by Jackson, whose message names Java classes.
                JsonLocation extra = parser.currentTokenLocation();
                throw new SpecException("", "unexpected content after the JSON document at line "
                        + extra.getLineNr() + ", column " + extra.getColumnNr());
            }
        } catch (JacksonException e) {
            throw ParseFailure.describe(e, parser);
        }
        if (document == null) {
            throw new SpecException("", "document is null, expected an object");
        }
        return document;
    }

    /**
     * Compact JSON, as Go's {@code json.Marshal}. {@link RuncState}, a list of them, {@link State} and
     * {@link Features} are written by hand-written code with the same output (start-up cost), the rest by
     * databind.
     */
    public static String write(Object value) {
        if (DocumentWriter.writes(value)) {
            return DocumentWriter.write(value, null);
        }
        return write(Mapper.INSTANCE.writer(), value);
    }

    /**
     * Indented JSON, as Go's {@code json.MarshalIndent(value, "", indent)}: no trailing newline.
     * See {@link #SPEC_INDENT}, {@link #STATE_INDENT}, {@link #FEATURES_INDENT}.
     */
    public static String writeIndented(Object value, String indent) {
        if (DocumentWriter.writes(value)) {
            return DocumentWriter.write(value, indent);
        }
        return write(Mapper.INSTANCE.writer(new GoIndentPrinter(indent)), value);
    }

    /** Exactly what {@code runc features} prints: four-space indent and a final newline. */
    public static String writeFeatures(Features features) {
        return writeIndented(features, FEATURES_INDENT) + "\n";
    }

    private static String write(ObjectWriter writer, Object value) {
        try {
            return writer.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            // Only a bug in a model class can get here: every type written is a plain record.
            throw new UncheckedIOException("cannot write " + value.getClass().getSimpleName(), e);
        }
    }
}
