package io.jrunc.agent.api.tar;

/**
 * One member of a tar stream as the copy calls use it: a name relative to the tree's top ("." for the
 * top itself, "./a/b" below it), what it is, its permission bits (the low 12 bits of st_mode: setuid,
 * setgid, sticky and rwx), numeric owner and group, modification time, and for a regular file its
 * size, for a symbolic link its target.
 */
public record TarEntry(String name, Kind kind, int mode, long uid, long gid, long mtimeSeconds, int mtimeNanos,
        long size, String linkTarget) {

    /** What a member is. OTHER (a device, FIFO, hard link, ...) is read past and never written. */
    public enum Kind { FILE, DIRECTORY, SYMLINK, OTHER }

    public TarEntry {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a tar entry needs a name");
        }
        if (size < 0 || (kind != Kind.FILE && size != 0 && kind != Kind.OTHER)) {
            throw new IllegalArgumentException("entry " + name + ": size " + size + " for a " + kind);
        }
        if (kind == Kind.SYMLINK && (linkTarget == null || linkTarget.isEmpty())) {
            throw new IllegalArgumentException("entry " + name + ": a symbolic link needs a target");
        }
        if (mtimeNanos < 0 || mtimeNanos > 999_999_999) {
            throw new IllegalArgumentException("entry " + name + ": nanoseconds " + mtimeNanos);
        }
        mode &= 07777;
    }

    public static TarEntry file(String name, int mode, long uid, long gid, long mtimeSeconds, int mtimeNanos, long size) {
        return new TarEntry(name, Kind.FILE, mode, uid, gid, mtimeSeconds, mtimeNanos, size, "");
    }

    public static TarEntry directory(String name, int mode, long uid, long gid, long mtimeSeconds, int mtimeNanos) {
        return new TarEntry(name, Kind.DIRECTORY, mode, uid, gid, mtimeSeconds, mtimeNanos, 0, "");
    }

    public static TarEntry symlink(String name, String target, long uid, long gid, long mtimeSeconds, int mtimeNanos) {
        return new TarEntry(name, Kind.SYMLINK, 0777, uid, gid, mtimeSeconds, mtimeNanos, 0, target);
    }
}
