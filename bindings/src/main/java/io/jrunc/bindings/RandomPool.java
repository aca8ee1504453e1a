package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrunc.bindings.c.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The kernel's random pool, through the ioctls of linux/random.h on /dev/urandom: bytes mixed in and
 * credited as entropy (RNDADDENTROPY), and the generator reseeded from the pool at once
 * (RNDRESEEDCRNG) rather than at its next interval. Both need CAP_SYS_ADMIN. Used by the guest agent
 * (jrunc-vminit): VMs restored from one saved state wake with the same generator, which only new
 * entropy and a reseed set apart. struct rand_pool_info: entropy_count (bits) at 0, buf_size (bytes)
 * at 4, the bytes from 8.
 */
public final class RandomPool {
    private RandomPool() {}

    public static final long RNDADDENTROPY = Libc.RNDADDENTROPY();
    public static final long RNDRESEEDCRNG = Libc.RNDRESEEDCRNG();

    // struct rand_pool_info (literals, checked against the generated layout by FacadeMatchesGeneratedTest)
    static final long POOL_INFO_ENTROPY_COUNT = 0, POOL_INFO_BUF_SIZE = 4, POOL_INFO_BUF = 8;

    /**
     * Mixes {@code bytes} into the pool, credited as 8 bits of entropy each (they come from a source
     * the caller trusts: the host's SecureRandom), then reseeds the generator.
     */
    public static void addAndReseed(byte[] bytes) {
        int fd = FileDescriptors.open("/dev/urandom", FileDescriptors.O_RDWR | FileDescriptors.O_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(POOL_INFO_BUF + bytes.length, 8);
            info.set(JAVA_INT, POOL_INFO_ENTROPY_COUNT, bytes.length * 8);
            info.set(JAVA_INT, POOL_INFO_BUF_SIZE, bytes.length);
            MemorySegment.copy(bytes, 0, info, JAVA_BYTE, POOL_INFO_BUF, bytes.length);
            FileDescriptors.ioctl(fd, RNDADDENTROPY, info.address());
            FileDescriptors.ioctl(fd, RNDRESEEDCRNG, 0);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }
}
