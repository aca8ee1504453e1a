package io.jrunc.ttrpc;

import java.time.Duration;

/**
 * @param synchronise        send a sync preamble and wait for its acknowledgement before any call (always,
 *                           against jrunc's agent; off only to speak to a plain ttRPC server)
 * @param syncTimeout        how long to keep trying to synchronise before giving up
 * @param syncResendInterval how often to resend the preamble while no acknowledgement came: a server
 *                           stuck in a dead client's half message judges bytes afresh only once they
 *                           follow a pause longer than its stall timeout, so this must be longer than that
 * @param callTimeout        the deadline of a call that names none; zero for none
 */
public record ClientOptions(boolean synchronise, Duration syncTimeout, Duration syncResendInterval, Duration callTimeout) {
    public static final ClientOptions DEFAULTS =
            new ClientOptions(true, Duration.ofSeconds(30), Duration.ofSeconds(3), Duration.ZERO);

    public ClientOptions {
        if (syncResendInterval.isNegative() || syncResendInterval.isZero() || syncTimeout.isNegative()
                || callTimeout.isNegative()) {
            throw new IllegalArgumentException("durations must be positive");
        }
    }

    public ClientOptions withSync(Duration timeout, Duration resendInterval) {
        return new ClientOptions(synchronise, timeout, resendInterval, callTimeout);
    }

    public ClientOptions withoutSync() {
        return new ClientOptions(false, syncTimeout, syncResendInterval, callTimeout);
    }

    public ClientOptions withCallTimeout(Duration timeout) {
        return new ClientOptions(synchronise, syncTimeout, syncResendInterval, timeout);
    }
}
