package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.bindings.Clocks;
import io.jrunc.bindings.RandomPool;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;

/**
 * What a Configure brings from the host besides the pod's description: its wall clock and fresh
 * entropy. Both matter most to a VM restored from a saved state (a template), which wakes with the
 * clock and the kernel's random generator it had when saved, the same in every VM restored from it;
 * a booted VM takes its clock from the emulated RTC, to the second, and is set to the host's too.
 *
 * <p>The clock is set at the first Configure this agent answers that carries one (the template is
 * saved before any), never again: a reconnecting monitor's Configure must not step the clock under
 * running containers. The entropy is mixed in, credited and the generator reseeded at every one.
 */
final class HostTimeAndEntropy {
    static final int MAX_ENTROPY_BYTES = 512;
    private boolean clockSet;

    synchronized void apply(ConfigurePodRequest r) throws RpcException {
        if (r.getEntropy().size() > MAX_ENTROPY_BYTES) {
            throw new RpcException(Code.INVALID_ARGUMENT, "entropy: " + r.getEntropy().size() + " bytes, at most "
                    + MAX_ENTROPY_BYTES);
        }
        if (!r.getEntropy().isEmpty()) {
            RandomPool.addAndReseed(r.getEntropy().toByteArray());
            Console.log("%d bytes of entropy from the host added, the kernel's generator reseeded", r.getEntropy().size());
        }
        if (r.getHostTimeNanos() != 0 && !clockSet) {
            long behind = r.getHostTimeNanos() / 1_000_000 - System.currentTimeMillis();
            Clocks.setRealtime(r.getHostTimeNanos());
            clockSet = true;
            Console.log("clock set to the host's (it was %d ms behind)", behind);
        }
    }
}
