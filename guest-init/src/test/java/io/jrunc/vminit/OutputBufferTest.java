package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputBufferTest {
    @Test
    void takesWhatIsThereUpToMaxThenEndOfFile() throws Exception {
        OutputBuffer b = new OutputBuffer();
        byte[] data = "hello world".getBytes(StandardCharsets.UTF_8);
        b.append(data, data.length);
        assertEquals("hello", new String(b.take(5), StandardCharsets.UTF_8));
        b.end();
        assertEquals(" world", new String(b.take(100), StandardCharsets.UTF_8));
        assertNull(b.take(100));
    }

    @Test
    void aFullBufferStopsTheWriterUntilRead() throws Exception {
        OutputBuffer b = new OutputBuffer();
        byte[] big = new byte[OutputBuffer.LIMIT + 10];
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                b.append(big, big.length);
                b.end();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.join(300);
        assertTrue(writer.isAlive(), "the writer went past the limit");
        assertEquals(OutputBuffer.LIMIT, b.take(Integer.MAX_VALUE).length);
        writer.join(5000);
        assertFalse(writer.isAlive());
        assertEquals(10, b.take(Integer.MAX_VALUE).length);
        assertNull(b.take(1));
    }

    @Test
    void aReaderWaitsForData() throws Exception {
        OutputBuffer b = new OutputBuffer();
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100);
                b.append(new byte[] {42}, 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertArrayEquals(new byte[] {42}, b.take(10));
    }
}
