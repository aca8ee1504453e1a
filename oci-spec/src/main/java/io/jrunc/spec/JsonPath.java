package io.jrunc.spec;

import java.util.regex.Pattern;

/**
 * A location inside a JSON document, rendered the way error messages show it:
 * {@code linux.namespaces[2].type}, {@code annotations["org.example.key"]}.
 *
 * <p>Names that are plain identifiers are joined with dots; any other name (map keys such as sysctl or
 * annotation keys often contain dots) is quoted in brackets so the path stays unambiguous.
 */
final class JsonPath {

    static final JsonPath ROOT = new JsonPath(null, "");

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final JsonPath parent;
    private final String segment;

    private JsonPath(JsonPath parent, String segment) {
        this.parent = parent;
        this.segment = segment;
    }

    /** An object member: a record field or a map key. */
    JsonPath field(String name) {
        if (IDENTIFIER.matcher(name).matches()) {
            return new JsonPath(this, this == ROOT ? name : "." + name);
        }
        return new JsonPath(this, "[\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]");
    }

    JsonPath index(int index) {
        return new JsonPath(this, "[" + index + "]");
    }

    @Override
    public String toString() {
        return parent == null ? segment : parent + segment;
    }
}
