package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UtcTextTest {
    private static final Instant[] EDGES = {Instant.EPOCH, Instant.ofEpochSecond(0, 1),
        Instant.ofEpochSecond(59, 500_000_000), Instant.ofEpochSecond(86_399, 999_999_999),
        Instant.ofEpochSecond(1_733_395_044L, 120_000), Instant.ofEpochSecond(-1, 1000),
        Instant.parse("2000-02-29T23:59:59.010Z"), Instant.parse("9999-12-31T23:59:59.999999999Z"),
        Instant.parse("0000-01-01T00:00:00Z"), Instant.now()};

    @Test
    void writesAndReadsWhatInstantDoes() {
        for (Instant t : EDGES) {
            check(t);
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
            check(Instant.ofEpochSecond(random.nextLong(min, max + 1), nanos));
        }
    }

    private static void check(Instant t) {
        assertEquals(t.toString(), UtcText.of(t), () -> "epoch second " + t.getEpochSecond());
        assertEquals(t, UtcText.parse(t.toString()));
        String go = GoTime.format(t);
        assertEquals(t, UtcText.parse(go), go);
        assertEquals(t, GoTime.parse(go), go);
    }

    /** Whatever Instant.parse makes of a text, UtcText.parse makes the same or refuses it the same. */
    @Test
    void readsEveryTextAsInstantDoes() {
        int refused = 0;
        for (String text : new String[] {"2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00.123456Z",
                "2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00.000000000Z", "2016-12-31T23:59:60Z",
                "2024-05-01t10:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T10:00:00.Z",
                "2024-02-30T10:00:00Z", "2024-13-01T10:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:0xZ",
                "2024-05-01T10:00:00.1234567890Z", "2024-05-01T10:00:00", "2024-05-01T-1:00:00Z", "-1", ""}) {
            Instant expected;
            try {
                expected = Instant.parse(text);
            } catch (DateTimeParseException e) {
                assertThrows(DateTimeParseException.class, () -> UtcText.parse(text), text);
                refused++;
                continue;
            }
            assertEquals(expected, UtcText.parse(text), text);
        }
        assertTrue(refused >= 8, "the refused texts: " + refused);
    }
}
