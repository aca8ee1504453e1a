package io.jrunc.ttrpc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a handler knows about the call besides its request.
 *
 * @param streamId      the ttRPC stream id the call arrived on
 * @param deadlineNanos the caller's deadline on the {@link System#nanoTime()} clock, or 0 for none
 *                      (from Request.timeout_nano): a handler that waits stops waiting then
 * @param metadata      Request.metadata, as gRPC metadata (a key may repeat)
 */
public record CallContext(int streamId, long deadlineNanos, Map<String, List<String>> metadata) {
    public CallContext {
        metadata = Map.copyOf(metadata);
    }

    /** Time left before the caller's deadline; empty when there is none. */
    public Optional<Duration> remaining() {
        if (deadlineNanos == 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
    }
}
