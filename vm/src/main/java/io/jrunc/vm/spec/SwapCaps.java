package io.jrunc.vm.spec;

import io.jrunc.vm.VmException;

/**
 * A container's swap cap as jrunc-vm takes it (swap alone, read against the memory limit, as a user
 * expects: `--memory 32m --swap 64m` lets 64m go to swap) and as the OCI spec carries it
 * (linux.resources.memory.swap, the memory+swap total, runc's and docker's --memory-swap). The guest's
 * runtime turns the total back into memory.swap.max (cgroups module, MemorySwapLimit).
 */
public final class SwapCaps {
    private SwapCaps() {
    }

    /** The OCI total for a memory limit and a cap, both positive or zero. */
    public static long total(long memoryLimit, long cap) throws VmException {
        try {
            return Math.addExact(memoryLimit, cap);
        } catch (ArithmeticException e) {
            throw new VmException("--swap " + cap + " with --memory " + memoryLimit + " is too large");
        }
    }
}
