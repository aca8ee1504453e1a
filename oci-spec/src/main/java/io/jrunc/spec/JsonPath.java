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

    static final JsonPath ROOT = new JsonPath(null, null, -1);

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    // Rendered only when a message needs it: validation makes a path for every element it checks
    // (a seccomp profile has hundreds of names), and a regex match plus a concatenation each cost a
    // cold JVM some milliseconds in all.
    private final JsonPath parent;
    private final String name;
    private final int index;

    private JsonPath(JsonPath parent, String name, int index) {
        this.parent = parent;
        this.name = name;
        this.index = index;
    }

    /** An object member: a record field or a map key. */
    JsonPath field(String name) {
        return new JsonPath(this, name, -1);
    }

    JsonPath index(int index) {
        return new JsonPath(this, null, index);
    }

    @Override
    public String toString() {
        if (parent == null) {
            return "";
        }
        String before = parent.toString();
        if (name == null) {
            return before + "[" + index + "]";
        }
        if (IDENTIFIER.matcher(name).matches()) {
            return parent == ROOT ? name : before + "." + name;
        }
        return before + "[\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
    }
}
