package io.jrunc.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UtcTextTest {

    @Test
    void writesWhatInstantWrites() {
        for (Instant t : new Instant[] {Instant.EPOCH, Instant.ofEpochSecond(0, 1), Instant.ofEpochSecond(59, 500_000_000),
                Instant.ofEpochSecond(86_399, 999_999_999), Instant.ofEpochSecond(1_733_395_044L, 120_000),
                Instant.ofEpochSecond(-1, 1000), Instant.parse("2000-02-29T23:59:59.010Z"),
                Instant.parse("9999-12-31T23:59:59.999999999Z"), Instant.parse("0000-01-01T00:00:00Z"), Instant.now()}) {
            assertEquals(t.toString(), UtcText.of(t));
        }
        SplittableRandom random = new SplittableRandom(42);
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 100_000; i++) {
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant t = Instant.ofEpochSecond(random.nextLong(min, max + 1), nanos);
            assertEquals(t.toString(), UtcText.of(t), () -> "epoch second " + t.getEpochSecond());
        }
    }
}
