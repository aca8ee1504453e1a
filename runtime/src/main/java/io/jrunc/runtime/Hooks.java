package io.jrunc.runtime;

import io.jrunc.spec.Hook;
import java.util.List;

/**
 * When each hook kind runs (runtime-spec config.md "Lifecycle"). prestart and createRuntime run during
 * create once the container's namespaces exist; createContainer follows them; startContainer runs
 * during start before the program is released; poststart after it; poststop after delete, where a
 * failure is only logged (runc does the same), since the container is already gone.
 */
final class Hooks {
    private Hooks() {}

    static void created(Container c) {
        var hooks = c.state().config().hooks();
        if (hooks == null) {
            return;
        }
        byte[] state = c.ociStateJson();
        HookRunner.run("prestart", hooks.prestart(), state);
        HookRunner.run("createRuntime", hooks.createRuntime(), state);
        HookRunner.run("createContainer", hooks.createContainer(), state);
    }

    static void startContainer(Container c) {
        run(c, "startContainer", c.state().config().hooks() == null ? null : c.state().config().hooks().startContainer());
    }

    static void poststart(Container c) {
        run(c, "poststart", c.state().config().hooks() == null ? null : c.state().config().hooks().poststart());
    }

    static void poststop(Container c, byte[] state) {
        var hooks = c.state().config().hooks();
        if (hooks == null || hooks.poststop() == null) {
            return;
        }
        try {
            HookRunner.run("poststop", hooks.poststop(), state);
        } catch (ContainerException e) {
            Log.warn(e.getMessage());
        }
    }

    private static void run(Container c, String kind, List<Hook> hooks) {
        if (hooks != null && !hooks.isEmpty()) {
            HookRunner.run(kind, hooks, c.ociStateJson());
        }
    }
}
