package io.jrunc.runtime.init;

import static io.jrunc.bindings.Namespaces.*;

import io.jrunc.spec.LinuxNamespace;
import io.jrunc.spec.Spec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * linux.namespaces split into namespaces to create (one unshare flag set) and namespaces to join by
 * path (setns, in runc's order: ipc, uts, net, pid, mount, cgroup). pid and time namespaces created
 * by unshare apply to the children the thread spawns next, which is what makes the container's
 * process PID 1 of its namespace.
 *
 * <p>A user namespace is never joined or created by the thread (the kernel wants a single-threaded
 * caller): a new one is in {@code create} (CLONE_NEWUSER), one given by path is {@code user}, apart from
 * the joins; either way a {@link NamespaceHolder} makes it.
 *
 * @param user the user namespace to join by path, or null
 */
public record NamespacePlan(int create, List<Join> joins, UserJoin user) {

    public record Join(String type, int flag, String path) {}

    /** @param field the config's entry ("linux.namespaces[2]"), for errors about the path */
    public record UserJoin(String field, String path) {}

    static final Map<String, Integer> FLAGS = Map.of(
            "pid", CLONE_NEWPID, "network", CLONE_NEWNET, "mount", CLONE_NEWNS, "ipc", CLONE_NEWIPC,
            "uts", CLONE_NEWUTS, "user", CLONE_NEWUSER, "cgroup", CLONE_NEWCGROUP, "time", CLONE_NEWTIME);

    private static final List<String> JOIN_ORDER = List.of("ipc", "uts", "network", "pid", "mount", "cgroup");

    public static NamespacePlan of(Spec spec) {
        int create = 0;
        UserJoin user = null;
        List<Join> joins = new ArrayList<>();
        List<LinuxNamespace> namespaces = spec.linux() == null ? null : spec.linux().namespaces();
        if (namespaces != null) {
            for (int i = 0; i < namespaces.size(); i++) {
                LinuxNamespace ns = namespaces.get(i);
                String where = "linux.namespaces[" + i + "]";
                Integer flag = FLAGS.get(ns.type());
                if (flag == null) {
                    throw new IllegalArgumentException(where + ".type: unknown namespace type \"" + ns.type() + "\"");
                }
                if (ns.path() == null || ns.path().isEmpty()) {
                    create |= flag;
                } else if (flag == CLONE_NEWTIME) {
                    // The kernel lets only a single-threaded process join a time namespace (timens_install).
                    throw new IllegalArgumentException(where + ".path: joining a time namespace is not supported");
                } else if (flag == CLONE_NEWUSER) {
                    user = new UserJoin(where, ns.path());
                } else {
                    joins.add(new Join(ns.type(), flag, ns.path()));
                }
            }
        }
        joins.sort((a, b) -> Integer.compare(JOIN_ORDER.indexOf(a.type()), JOIN_ORDER.indexOf(b.type())));
        return new NamespacePlan(create, List.copyOf(joins), user);
    }

    public boolean creates(int flag) {
        return (create & flag) != 0;
    }

    public boolean has(int flag) {
        return creates(flag) || joins.stream().anyMatch(j -> j.flag() == flag) || (user != null && flag == CLONE_NEWUSER);
    }

    /** Whether the container has a user namespace of its own, new or joined. */
    public boolean hasUser() {
        return has(CLONE_NEWUSER);
    }
}
