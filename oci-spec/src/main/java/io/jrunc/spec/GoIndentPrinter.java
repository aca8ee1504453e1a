package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;
import com.fasterxml.jackson.core.util.Instantiatable;
import java.io.IOException;

/**
 * Lays JSON out exactly like Go's {@code json.MarshalIndent(v, "", indent)}, which is what runc prints
 * ({@code runc spec} uses a tab, {@code runc features} four spaces, {@code runc state} two): every member
 * and element on its own line, {@code "key": value}, and {@code {}} / {@code []} for empty containers.
 * Jackson's default printer differs in all three ({@code "key" : value}, inline arrays, {@code [ ]}).
 */
final class GoIndentPrinter implements PrettyPrinter, Instantiatable<GoIndentPrinter> {

    private final String indent;
    private int depth;

    GoIndentPrinter(String indent) {
        this.indent = indent;
    }

    @Override
    public GoIndentPrinter createInstance() {
        // Depth is per document, so every generator needs its own printer.
        return new GoIndentPrinter(indent);
    }

    private void newLine(JsonGenerator gen) throws IOException {
        gen.writeRaw('\n');
        for (int i = 0; i < depth; i++) {
            gen.writeRaw(indent);
        }
    }

    @Override
    public void writeRootValueSeparator(JsonGenerator gen) {
        // One document per write; separators between documents are the caller's business.
    }

    @Override
    public void writeStartObject(JsonGenerator gen) throws IOException {
        gen.writeRaw('{');
        depth++;
    }

    @Override
    public void beforeObjectEntries(JsonGenerator gen) throws IOException {
        newLine(gen);
    }

    @Override
    public void writeObjectFieldValueSeparator(JsonGenerator gen) throws IOException {
        gen.writeRaw(": ");
    }

    @Override
    public void writeObjectEntrySeparator(JsonGenerator gen) throws IOException {
        gen.writeRaw(',');
        newLine(gen);
    }

    @Override
    public void writeEndObject(JsonGenerator gen, int entries) throws IOException {
        depth--;
        if (entries > 0) {
            newLine(gen);
        }
        gen.writeRaw('}');
    }

    @Override
    public void writeStartArray(JsonGenerator gen) throws IOException {
        gen.writeRaw('[');
        depth++;
    }

    @Override
    public void beforeArrayValues(JsonGenerator gen) throws IOException {
        newLine(gen);
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator gen) throws IOException {
        gen.writeRaw(',');
        newLine(gen);
    }

    @Override
    public void writeEndArray(JsonGenerator gen, int values) throws IOException {
        depth--;
        if (values > 0) {
            newLine(gen);
        }
        gen.writeRaw(']');
    }
}
