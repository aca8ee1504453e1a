package io.jrunc.runtime;

/** Container IDs as runc accepts them (libcontainer validateID): a clean, non-empty path component. */
public final class ContainerId {
    private ContainerId() {}

    public static String validate(String id) {
        if (id == null || id.isEmpty()) {
            throw new ContainerException("container id cannot be empty");
        }
        if (!allowed(id) || id.equals(".") || id.equals("..") || id.length() > 1024) {
            throw new ContainerException("invalid container ID format");
        }
        return id;
    }

    /** [A-Za-z0-9_+.-]+, checked by hand: every command validates an id, and a regex costs it start-up. */
    private static boolean allowed(String id) {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '+' || c == '.' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
