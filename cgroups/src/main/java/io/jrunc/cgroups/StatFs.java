package io.jrunc.cgroups;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * statfs(2) through java.lang.foreign, for the one thing Java file IO cannot tell: the filesystem
 * magic of a mount (runc decides the cgroup mode by comparing {@code f_type} with the cgroup magics).
 * Deliberately tiny and package-private: the shared bindings module is not ready, and this module
 * needs nothing else native. Move it there once it is.
 */
final class StatFs {
    static final long CGROUP2_SUPER_MAGIC = 0x63677270L; // include/uapi/linux/magic.h
    static final long CGROUP_SUPER_MAGIC = 0x27e0ebL;

    // struct statfs on LP64 glibc (x86-64, aarch64) starts with __fsword_t f_type (8 bytes) and is
    // 120 bytes long; the buffer is larger so a libc with a longer struct cannot overrun it.
    private static final long STRUCT_STATFS_BUFFER = 256;

    private static final MethodHandle STATFS = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("statfs").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private StatFs() {
    }

    /** The filesystem magic of the filesystem holding {@code path}; empty when statfs fails (e.g. ENOENT). */
    static OptionalLong type(Path path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(STRUCT_STATFS_BUFFER, 8);
            int rc = (int) STATFS.invokeExact(arena.allocateFrom(path.toString()), buffer);
            return rc == 0 ? OptionalLong.of(buffer.get(ValueLayout.JAVA_LONG, 0)) : OptionalLong.empty();
        } catch (Throwable t) {
            throw new IllegalStateException("statfs " + path, t);
        }
    }
}
