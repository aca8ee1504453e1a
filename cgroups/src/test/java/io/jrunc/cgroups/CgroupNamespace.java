package io.jrunc.cgroups;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Test-only: unshare(CLONE_NEWCGROUP) on the calling thread, to check that a thread placed with
 * {@link Cgroup#placeForChildren} gives its children a cgroup namespace rooted at the container's
 * cgroup. A direct java.lang.foreign downcall because the shared bindings module is not ready.
 */
final class CgroupNamespace {
    private static final int CLONE_NEWCGROUP = 0x02000000;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final MethodHandle UNSHARE = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("unshare").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private CgroupNamespace() {
    }

    static void unshareOnThisThread() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) UNSHARE.invokeExact(state, CLONE_NEWCGROUP);
            if (rc != 0) {
                int errno = (int) CALL_STATE.varHandle(StructLayout.PathElement.groupElement("errno")).get(state, 0L);
                throw new IllegalStateException("unshare(CLONE_NEWCGROUP) failed, errno " + errno);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
