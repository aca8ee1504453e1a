package io.jrunc.ttrpc;

import java.time.Duration;

/**
 * @param stallTimeout how long the rest of a half-received message may take on a port before its
 *                     sender is taken to be gone (see {@link FrameReader}); longer than any pause of a
 *                     live sender, shorter than a client's sync resend interval
 * @param maxInFlight  calls running at once on one connection; more are answered RESOURCE_EXHAUSTED
 *                     (a bound on threads and memory that a misbehaving client cannot lift)
 */
public record ServerOptions(Duration stallTimeout, int maxInFlight) {
    public static final ServerOptions DEFAULTS = new ServerOptions(Duration.ofSeconds(2), 1024);

    public ServerOptions {
        if (stallTimeout.isNegative() || maxInFlight < 1) {
            throw new IllegalArgumentException("stallTimeout >= 0 and maxInFlight >= 1");
        }
    }
}
