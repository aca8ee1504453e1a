package io.jrunc.spec;

import java.util.List;

/**
 * The one failure type of this module: a bundle's config (or a state/features document) that cannot be
 * read, parsed, or accepted.
 *
 * <p>Checked on purpose: a bad config.json is an expected input failure at the edge of the runtime, and
 * every caller (create, run, exec -p) must turn it into runc's "print and exit 1" instead of letting it
 * escape as a stack trace.
 *
 * <p>The message is the first problem as {@code path: problem} (runc reports one error at a time); all
 * problems found are in {@link #problems()}.
 */
public final class SpecException extends Exception {

    private final List<SpecProblem> problems;

    public SpecException(String path, String problem) {
        this(path, problem, null);
    }

    public SpecException(String path, String problem, Throwable cause) {
        super(new SpecProblem(path, problem).toString(), cause);
        this.problems = List.of(new SpecProblem(path, problem));
    }

    /** @param problems at least one */
    public SpecException(List<SpecProblem> problems) {
        super(problems.getFirst().toString());
        this.problems = List.copyOf(problems);
    }

    /** JSON path of the first problem, e.g. {@code process.args}; empty for the whole document. */
    public String path() {
        return problems.getFirst().path();
    }

    /** The first problem without its path, e.g. {@code must not be empty}. */
    public String problem() {
        return problems.getFirst().problem();
    }

    /** Every problem found, in document order; never empty. */
    public List<SpecProblem> problems() {
        return problems;
    }
}
