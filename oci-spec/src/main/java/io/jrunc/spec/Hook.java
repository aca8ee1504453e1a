package io.jrunc.spec;

import java.util.List;

/**
 * One hook command; the container state is written to its stdin (config.md, Hooks).
 *
 * @param path absolute path of the executable.
 * @param args argv including argv[0].
 * @param timeout seconds; must be greater than zero when set.
 */
public record Hook(
        String path,
        List<String> args,
        List<String> env,
        Integer timeout) {

    public Hook {
        args = Frozen.list(args);
        env = Frozen.list(env);
    }
}
