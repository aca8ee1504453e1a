package io.jrunc.runtime;

import java.util.regex.Pattern;

/** Container IDs as runc accepts them (libcontainer validateID): a clean, non-empty path component. */
public final class ContainerId {
    private ContainerId() {}

    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9_+.-]+");

    public static String validate(String id) {
        if (id == null || id.isEmpty()) {
            throw new ContainerException("container id cannot be empty");
        }
        if (!ALLOWED.matcher(id).matches() || id.equals(".") || id.equals("..") || id.length() > 1024) {
            throw new ContainerException("invalid container ID format");
        }
        return id;
    }
}
