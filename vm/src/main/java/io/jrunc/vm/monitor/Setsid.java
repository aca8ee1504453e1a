package io.jrunc.vm.monitor;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;

/**
 * setsid(2) through FFM, for the monitor: started by a CLI call, it must outlive that call's session
 * and terminal (a shell's SIGHUP on logout, a ^C to the CLI's process group). The CLI starts the
 * monitor JVM with ProcessBuilder (never forking a JVM itself), so the monitor is not a process group
 * leader and setsid succeeds.
 */
final class Setsid {
    private Setsid() {
    }

    @SuppressWarnings("restricted") // native access is this module's declared need (Enable-Native-Access)
    static int call() {
        Linker linker = Linker.nativeLinker();
        var setsid = linker.downcallHandle(linker.defaultLookup().find("setsid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        try {
            return (int) setsid.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("setsid", t);
        }
    }
}
