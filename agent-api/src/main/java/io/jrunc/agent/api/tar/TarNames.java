package io.jrunc.agent.api.tar;

import java.util.ArrayList;
import java.util.List;

/**
 * The rule for member names on both sides of a copy: relative to the tree's top, made of components
 * that are neither empty nor "..", so no member can name anything outside the tree it is written
 * into, whatever the stream's producer intended. "." components are dropped.
 */
public final class TarNames {
    private TarNames() {
    }

    /**
     * The components of {@code name} below the top (empty for the top itself: ".", "./", "").
     *
     * @throws IllegalArgumentException for an absolute name or one with a ".." component
     */
    public static List<String> components(String name) {
        if (name.startsWith("/")) {
            throw new IllegalArgumentException("tar member " + name + ": an absolute name");
        }
        List<String> parts = new ArrayList<>();
        for (String part : name.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                throw new IllegalArgumentException("tar member " + name + ": a \"..\" component");
            }
            if (part.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("tar member " + name + ": a NUL byte");
            }
            parts.add(part);
        }
        return parts;
    }

    /** The name of the member at {@code parts} below the top: ".", or "./a/b". */
    public static String name(List<String> parts) {
        return parts.isEmpty() ? "." : "./" + String.join("/", parts);
    }
}
