package io.jrunc.cli;

import io.jrunc.runtime.ContainerException;

/** runc's wording for a missing container id argument. */
final class Ids {
    private Ids() {}

    static void require(String id, String command) {
        if (id == null || id.isEmpty()) {
            throw new ContainerException("jrunc: \"" + command + "\" requires exactly 1 argument(s)"); // runc: "runc: ..."
        }
    }
}
