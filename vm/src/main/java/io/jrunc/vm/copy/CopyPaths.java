package io.jrunc.vm.copy;

import io.jrunc.vm.VmException;

/**
 * `cp`'s arguments and docker cp's rules for where a copy lands, as pure functions of the two paths
 * and what each names.
 *
 * <p>An argument is {@code CONTAINER:PATH} unless it is absolute, starts with ".", has no colon, or
 * has a "/" before its first colon (then it is a local path, as docker reads it: "./a:b" is a file).
 * A container path is taken from the container's "/" ("tmp/x" is "/tmp/x") and resolves inside its
 * root ("../../etc/passwd" is the container's /etc/passwd).
 *
 * <p>Where the source lands:
 * <ul>
 * <li>a file (or link) onto a missing path: that path, whose directory must exist; onto a missing
 *     path ending with "/": an error (the directory must exist); onto a file: overwritten; into a
 *     directory: under the source's name there;
 * <li>a directory onto a missing path: that path is made, with the source's contents; onto a file:
 *     an error; into a directory: under the source's name there, or, when the source ends with "/."
 *     (its last component is "."), its contents merged into the directory.
 * </ul>
 */
public final class CopyPaths {
    private CopyPaths() {
    }

    /** One side of a copy: a local path, or a path in a container. */
    public sealed interface Side permits Local, InContainer {
        String path();
    }

    public record Local(String path) implements Side {
    }

    public record InContainer(String container, String path) implements Side {
    }

    /** What a path names, as far as the rules care. */
    public enum Kind { ABSENT, FILE, DIRECTORY }

    /**
     * Where a copy lands: the stream's top becomes {@code name} in {@code directory}, or, with an empty
     * name, is merged into {@code directory} itself.
     */
    public record Target(String directory, String name) {
    }

    public static Side side(String arg) {
        if (arg.startsWith("/") || arg.startsWith(".")) {
            return new Local(arg);
        }
        int colon = arg.indexOf(':');
        if (colon < 0 || arg.substring(0, colon).contains("/")) {
            return new Local(arg);
        }
        return new InContainer(arg.substring(0, colon), arg.substring(colon + 1));
    }

    /** The container path as an absolute path in the container ("tmp/x" is "/tmp/x"). */
    public static String containerPath(String path) throws VmException {
        if (path.isEmpty()) {
            throw new VmException("cp: a container path must not be empty (CONTAINER:PATH)");
        }
        if (path.indexOf('\0') >= 0) {
            throw new VmException("cp: a path must not contain a NUL byte");
        }
        return path.startsWith("/") ? path : "/" + path;
    }

    /** The source's last component is ".": its contents are copied, not the directory itself. */
    public static boolean contentsOnly(String source) {
        return lastComponent(source).equals(".");
    }

    /** The last component of a path, trailing slashes ignored ("" for "/"). */
    public static String lastComponent(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.equals("/")) {
            return "";
        }
        return p.substring(p.lastIndexOf('/') + 1);
    }

    /** The directory part of a path ("." for a bare name, "/" for "/x"). */
    public static String parent(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        int slash = p.lastIndexOf('/');
        if (slash < 0) {
            return ".";
        }
        return slash == 0 ? "/" : p.substring(0, slash);
    }

    /**
     * Where {@code source} (a directory or not) lands given what {@code destination} names.
     *
     * @throws VmException for a directory onto a file, or a file onto a missing path ending with "/"
     */
    public static Target target(String source, boolean sourceIsDirectory, String destination, Kind destinationKind)
            throws VmException {
        String name = lastComponent(source);
        return switch (destinationKind) {
            case DIRECTORY -> {
                if (sourceIsDirectory && (contentsOnly(source) || name.isEmpty() || name.equals(".."))) {
                    yield new Target(destination, "");
                }
                if (name.isEmpty() || name.equals(".") || name.equals("..")) {
                    throw new VmException("cp: " + source + " names no file to copy into " + destination);
                }
                yield new Target(destination, name);
            }
            case FILE -> {
                if (sourceIsDirectory) {
                    throw new VmException("cp: cannot copy a directory (" + source + ") to a file (" + destination + ")");
                }
                if (destination.endsWith("/")) {
                    throw new VmException("cp: " + destination + ": not a directory");
                }
                yield new Target(parent(destination), lastComponent(destination));
            }
            case ABSENT -> {
                if (!sourceIsDirectory && destination.endsWith("/")) {
                    throw new VmException("cp: the destination directory " + destination + " must exist");
                }
                String leaf = lastComponent(destination);
                if (leaf.isEmpty() || leaf.equals(".") || leaf.equals("..")) {
                    throw new VmException("cp: " + destination + " names no file to create");
                }
                yield new Target(parent(destination), leaf);
            }
        };
    }
}
