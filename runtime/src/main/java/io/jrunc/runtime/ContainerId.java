package io.jrunc.runtime;

/** Container IDs as runc accepts them (libcontainer validateID): a clean, non-empty path component. */
public final class ContainerId {
    private ContainerId() {}

    /** NAME_MAX: the ID is the state directory's name. */
    public static final int MAX_LENGTH = 255;

    public static String validate(String id) {
        if (id == null || id.isEmpty()) {
            throw new ContainerException("container id cannot be empty");
        }
        if (!allowed(id) || id.equals(".") || id.equals("..")) {
            throw new ContainerException("invalid container ID format");
        }
        if (id.length() > MAX_LENGTH) {
            // runc fails later, on the directory ("file name too long"); here it is one of the id's rules
            throw new ContainerException("invalid container ID format: longer than " + MAX_LENGTH
                    + " characters (the ID names a directory)");
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
