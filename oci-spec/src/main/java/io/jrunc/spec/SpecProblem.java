package io.jrunc.spec;

/**
 * One thing wrong with a document: where ({@code path}, e.g. {@code linux.namespaces[2].type}) and what
 * ({@code problem}, e.g. {@code unknown namespace type "foo"}). An empty path means the whole document.
 */
public record SpecProblem(String path, String problem) {

    /** The form printed to users: {@code path: problem}, or just the problem for the whole document. */
    @Override
    public String toString() {
        return path.isEmpty() ? problem : path + ": " + problem;
    }
}
