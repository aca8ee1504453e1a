package io.jrunc.seccomp;

import io.jrunc.spec.LinuxSeccomp;

/**
 * Compiles the runtime-spec's {@code linux.seccomp} into a classic BPF program whose decisions equal
 * those of the program libseccomp 2.5.4 builds from what runc 1.1 hands it, with runc's -ENOSYS stub
 * in front (docs/seccomp.md describes the layout and the oracle test that holds it to this).
 */
public final class SeccompCompiler {
    private SeccompCompiler() {}

    /**
     * @param nativeArch the architecture the container runs on: always in the filter, and the one
     *     syscall names are resolved on first, as runc does
     * @throws SeccompException for a profile that cannot be compiled, naming the JSON path
     */
    public static CompiledFilter compile(LinuxSeccomp seccomp, Arch nativeArch) {
        throw new UnsupportedOperationException("TODO");
    }
}
