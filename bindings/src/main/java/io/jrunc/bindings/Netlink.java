package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.FunctionDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A NETLINK_ROUTE socket and the netlink message format: what the kernel's network configuration
 * (links, addresses, routes, traffic control) is read and changed through, without the {@code ip} or
 * {@code tc} programs. The socket belongs to the network namespace of the thread that opens it, and
 * keeps it: a thread that setns(2)/unshare(2)s into another namespace and opens a socket here
 * configures that namespace from then on, whichever thread uses the socket.
 *
 * <p>Messages are built and parsed in Java (header, fixed part, attributes: include/uapi/linux/netlink.h
 * and rtnetlink.h) in the machine's byte order; the socket is read and written with read(2) and write(2)
 * (a netlink socket not connected elsewhere sends to the kernel). Every request asks for an
 * acknowledgement, and a negative error in it becomes an {@link ErrnoException} naming the request.
 * The values below are the UAPI headers' (Linux 6.1); the kernel's own answers in {@code NetlinkTest}
 * check them.
 */
public final class Netlink implements AutoCloseable {
    public static final int AF_NETLINK = 16, NETLINK_ROUTE = 0, SOCK_RAW = 3;
    public static final int NLMSG_ERROR = 2, NLMSG_DONE = 3;
    public static final int NLM_F_REQUEST = 1, NLM_F_MULTI = 2, NLM_F_ACK = 4, NLM_F_DUMP = 0x300,
            NLM_F_REPLACE = 0x100, NLM_F_EXCL = 0x200, NLM_F_CREATE = 0x400;
    /** The header, struct nlmsghdr: length u32, type u16, flags u16, sequence u32, port id u32. */
    public static final int HEADER_SIZE = 16;
    private static final int RECEIVE_BUFFER = 1 << 16;

    private static final class Handles {
        static final NativeFunction SOCKET = Downcall.function("socket",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    }

    private final int fd;
    private int sequence;

    private Netlink(int fd) {
        this.fd = fd;
    }

    /** A NETLINK_ROUTE socket in the calling thread's network namespace. */
    public static Netlink open() {
        return new Netlink(Calls.checked(Handles.SOCKET, "socket", "AF_NETLINK", AF_NETLINK,
                SOCK_RAW | UnixSockets.SOCK_CLOEXEC, NETLINK_ROUTE));
    }

    /** One message the kernel sent: its type and flags, and what follows the header. */
    public record Message(int type, int flags, ByteBuffer body) {
    }

    /**
     * Sends one request (NLM_F_REQUEST | NLM_F_ACK | {@code flags}) and returns the messages answered
     * before the acknowledgement or, for a dump, before NLMSG_DONE.
     *
     * @param what names the request in an error ("RTM_NEWADDR 10.0.2.15/24 on eth0")
     */
    public List<Message> request(int type, int flags, byte[] body, String what) {
        int seq = ++sequence;
        ByteBuffer out = ByteBuffer.allocate(HEADER_SIZE + align(body.length)).order(ByteOrder.nativeOrder());
        out.putInt(HEADER_SIZE + body.length).putShort((short) type).putShort((short) (NLM_F_REQUEST | NLM_F_ACK | flags))
                .putInt(seq).putInt(0).put(body);
        FileDescriptors.write(fd, out.array());
        List<Message> answers = new ArrayList<>();
        while (true) {
            byte[] buffer = new byte[RECEIVE_BUFFER]; // the answers are views of it: one per read
            int n = FileDescriptors.read(fd, buffer, buffer.length);
            ByteBuffer in = ByteBuffer.wrap(buffer, 0, n).order(ByteOrder.nativeOrder());
            while (in.remaining() >= HEADER_SIZE) {
                int start = in.position();
                int length = in.getInt();
                int msgType = Short.toUnsignedInt(in.getShort());
                int msgFlags = Short.toUnsignedInt(in.getShort());
                int msgSeq = in.getInt();
                in.getInt();
                if (length < HEADER_SIZE || start + length > n) {
                    throw new IllegalStateException("netlink: a malformed answer to " + what);
                }
                ByteBuffer payload = in.slice(start + HEADER_SIZE, length - HEADER_SIZE).order(ByteOrder.nativeOrder());
                in.position(Math.min(n, start + align(length)));
                if (msgSeq != seq) {
                    continue; // an answer to an earlier request that gave up
                }
                if (msgType == NLMSG_ERROR) {
                    int error = payload.getInt(0);
                    if (error != 0) {
                        throw new ErrnoException("netlink", -error, what);
                    }
                    return answers; // the acknowledgement
                }
                if (msgType == NLMSG_DONE) {
                    return answers;
                }
                answers.add(new Message(msgType, msgFlags, payload));
            }
        }
    }

    @Override
    public void close() {
        FileDescriptors.closeQuietly(fd);
    }

    static int align(int length) {
        return (length + 3) & ~3;
    }

    /**
     * A message body: a fixed part, then attributes (struct rtattr: length u16, type u16, the value,
     * padded to 4 bytes). A nested attribute is begun with {@link #begin} and ended with {@link #end}.
     */
    public static final class Body {
        private final ByteBuffer buffer = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
        private final List<Integer> open = new ArrayList<>();

        public Body u8(int v) {
            buffer.put((byte) v);
            return this;
        }

        public Body u16(int v) {
            buffer.putShort((short) v);
            return this;
        }

        public Body u32(int v) {
            buffer.putInt(v);
            return this;
        }

        public Body bytes(byte[] v) {
            buffer.put(v);
            return this;
        }

        public Body attribute(int type, byte[] value) {
            buffer.putShort((short) (4 + value.length)).putShort((short) type).put(value);
            pad();
            return this;
        }

        public Body attribute(int type, int value) {
            return attribute(type, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array());
        }

        /** A NUL-terminated string attribute. */
        public Body attribute(int type, String value) {
            byte[] text = value.getBytes(StandardCharsets.UTF_8);
            byte[] z = new byte[text.length + 1];
            System.arraycopy(text, 0, z, 0, text.length);
            return attribute(type, z);
        }

        public Body begin(int type) {
            open.add(buffer.position());
            buffer.putShort((short) 0).putShort((short) (type | NLA_F_NESTED));
            return this;
        }

        public Body end() {
            int start = open.removeLast();
            buffer.putShort(start, (short) (buffer.position() - start));
            return this;
        }

        private void pad() {
            while (buffer.position() % 4 != 0) {
                buffer.put((byte) 0);
            }
        }

        public byte[] bytes() {
            byte[] out = new byte[buffer.position()];
            buffer.get(0, out);
            return out;
        }
    }

    /** NLA_F_NESTED: set on a nested attribute's type (the kernel's strict validation wants it). */
    public static final int NLA_F_NESTED = 0x8000;

    /** The attributes after a fixed part of {@code fixedSize} bytes, by type (the last of a type wins). */
    public static Map<Integer, ByteBuffer> attributes(ByteBuffer body, int fixedSize) {
        Map<Integer, ByteBuffer> out = new LinkedHashMap<>();
        int at = fixedSize;
        while (at + 4 <= body.limit()) {
            int length = Short.toUnsignedInt(body.getShort(at));
            int type = Short.toUnsignedInt(body.getShort(at + 2)) & ~NLA_F_NESTED;
            if (length < 4 || at + length > body.limit()) {
                break;
            }
            out.put(type, body.slice(at + 4, length - 4).order(ByteOrder.nativeOrder()));
            at += align(length);
        }
        return out;
    }

    /** A string attribute's value, without its NUL. */
    public static String string(ByteBuffer value) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        for (int i = 0; i < value.limit() && value.get(i) != 0; i++) {
            text.write(value.get(i));
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    public static byte[] bytes(ByteBuffer value) {
        byte[] out = new byte[value.limit()];
        value.get(0, out);
        return out;
    }
}
