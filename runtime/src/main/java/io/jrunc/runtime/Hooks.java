package io.jrunc.runtime;

import io.jrunc.spec.Hook;
import java.util.List;
import java.util.function.Function;

/**
 * When each hook kind runs (runtime-spec config.md "Lifecycle"). prestart and createRuntime run during
 * create once the container's namespaces exist; createContainer follows them; startContainer runs
 * during start before the program is released; poststart after it; poststop after delete, where a
 * failure is only logged (runc does the same), since the container is already gone.
 *
 * <p>The state records which kinds the config has, so a container without hooks never has its
 * config parsed again after create.
 */
final class Hooks {
    private Hooks() {}

    static final List<String> KINDS =
            List.of("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop");

    /** The hook kinds present (non-empty) in a config's hooks. */
    static List<String> present(io.jrunc.spec.Hooks hooks) {
        if (hooks == null) {
            return List.of();
        }
        return KINDS.stream().filter(k -> {
            List<Hook> list = of(hooks, k);
            return list != null && !list.isEmpty();
        }).toList();
    }

    static List<Hook> of(io.jrunc.spec.Hooks hooks, String kind) {
        Function<io.jrunc.spec.Hooks, List<Hook>> f = switch (kind) {
            case "prestart" -> io.jrunc.spec.Hooks::prestart;
            case "createRuntime" -> io.jrunc.spec.Hooks::createRuntime;
            case "createContainer" -> io.jrunc.spec.Hooks::createContainer;
            case "startContainer" -> io.jrunc.spec.Hooks::startContainer;
            case "poststart" -> io.jrunc.spec.Hooks::poststart;
            case "poststop" -> io.jrunc.spec.Hooks::poststop;
            default -> throw new IllegalArgumentException(kind);
        };
        return f.apply(hooks);
    }

    static void created(Container c) {
        if (c.state().hooks().isEmpty()) {
            return;
        }
        byte[] creating = c.ociStateJson(io.jrunc.spec.ContainerStatus.CREATING);
        run(c, "prestart", creating);
        run(c, "createRuntime", creating);
        run(c, "createContainer", creating);
    }

    static void startContainer(Container c) {
        run(c, "startContainer", null);
    }

    static void poststart(Container c) {
        run(c, "poststart", null);
    }

    static void poststop(Container c, byte[] state) {
        try {
            run(c, "poststop", state);
        } catch (ContainerException e) {
            Log.warn(e.getMessage());
        }
    }

    /** The kinds the runtime-spec runs "in the container namespace" (config.md, Lifecycle). */
    private static final List<String> IN_CONTAINER = List.of("createContainer", "startContainer");

    private static void run(Container c, String kind, byte[] state) {
        if (!c.state().hooks().contains(kind)) {
            return;
        }
        List<Hook> hooks = of(c.config().hooks(), kind);
        byte[] json = state != null ? state : c.ociStateJson();
        if (!IN_CONTAINER.contains(kind)) {
            HookRunner.run(kind, hooks, json);
            return;
        }
        try {
            ContainerNamespaces.Root root = kind.equals("startContainer") ? ContainerNamespaces.Root.CONTAINER
                    : ContainerNamespaces.Root.HOST;
            ContainerNamespaces.call(c.state().pid(), root, () -> {
                HookRunner.run(kind, hooks, json);
                return null;
            });
        } catch (ContainerException e) {
            throw e;
        } catch (Exception e) {
            throw new ContainerException(kind + " hook: " + e.getMessage(), e);
        }
    }
}
