package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Tap devices (/dev/net/tun with TUNSETIFF): an Ethernet interface whose other end is a descriptor, in
 * the network namespace of the thread that makes it. A persistent tap (TUNSETPERSIST) outlives the
 * descriptor, so another process (qemu) can open it by name; it goes with {@link Rtnetlink#deleteLink}.
 * Values from include/uapi/linux/if_tun.h and if.h: struct ifreq is 40 bytes, the name (IFNAMSIZ 16)
 * at 0 and the flags (short) at 16.
 */
public final class Tap {
    private Tap() {}

    public static final long TUNSETIFF = 0x400454caL, TUNSETPERSIST = 0x400454cbL;
    public static final int IFF_TAP = 0x0002, IFF_NO_PI = 0x1000, IFF_VNET_HDR = 0x4000;
    static final int IFREQ_SIZE = 40, IFNAMSIZ = 16;

    /**
     * Makes the tap {@code name} (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, what qemu's tap backend opens)
     * persistent, in the calling thread's network namespace, and closes the descriptor.
     */
    public static void createPersistent(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("tap name " + name + ": 1 to 15 characters");
        }
        int fd = FileDescriptors.open("/dev/net/tun", FileDescriptors.O_RDWR | FileDescriptors.O_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = arena.allocate(IFREQ_SIZE);
            MemorySegment.copy(bytes, 0, ifr, ValueLayout.JAVA_BYTE, 0, bytes.length);
            ifr.set(ValueLayout.JAVA_SHORT, IFNAMSIZ, (short) (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR));
            FileDescriptors.ioctl(fd, TUNSETIFF, ifr.address());
            FileDescriptors.ioctl(fd, TUNSETPERSIST, 1);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }
}
