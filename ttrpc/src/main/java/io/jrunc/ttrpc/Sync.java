package io.jrunc.ttrpc;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * The resynchronisation messages, an addition of this project to ttRPC's framing (docs/protocol.md,
 * "Resynchronisation"). A client sends a preamble when it connects; the server answers an
 * acknowledgement echoing the preamble's nonce. Both are 16 bytes: an 8-byte magic and an 8-byte
 * nonce.
 *
 * <p>Why they can be told from frames: a ttRPC header starts with the high byte of a length of at
 * most 4 MiB, so its first byte is always 0 (PROTOCOL.md reserves it), and a sync message starts with
 * 0xff. Every byte of a sync message, nonce included, is non-zero, so a reader that lost its place and
 * reads a header from inside one gets a length over 16 MiB, refused at once, rather than a plausible
 * length that would have it wait for data that never comes.
 */
public final class Sync {
    public static final int LENGTH = 16;
    public static final int NONCE_LENGTH = 8;

    /** The first byte of every sync message; a frame's first byte is 0. */
    public static final byte LEAD = (byte) 0xFF;

    private static final byte[] PREAMBLE_MAGIC = {LEAD, 'j', 'r', 's', 'y', 'n', 'c', '?'};
    private static final byte[] ACK_MAGIC = {LEAD, 'j', 'r', 's', 'y', 'n', 'c', '!'};

    public enum Kind {
        PREAMBLE(PREAMBLE_MAGIC),
        ACK(ACK_MAGIC);

        private final byte[] magic;

        Kind(byte[] magic) {
            this.magic = magic;
        }
    }

    private Sync() {
    }

    /**
     * The nonces' source, made at the first nonce: only a client draws one, and a server that only
     * echoes them (the agent) never pays for a SecureRandom's set-up (the security providers listed,
     * their properties read, /dev/random opened), which took the agent's one vCPU about 0.35 s under
     * emulation at its first sync, right after its ready line.
     */
    private static final class Nonces {
        static final RandomGenerator RANDOM = new SecureRandom();
    }

    /** A fresh nonce: 8 random bytes, none of them 0. */
    public static byte[] newNonce() {
        byte[] nonce = new byte[NONCE_LENGTH];
        for (int i = 0; i < nonce.length; i++) {
            nonce[i] = (byte) (1 + Nonces.RANDOM.nextInt(255));
        }
        return nonce;
    }

    public static byte[] encode(Kind kind, byte[] nonce) {
        if (nonce.length != NONCE_LENGTH) {
            throw new IllegalArgumentException("a nonce has " + NONCE_LENGTH + " bytes");
        }
        for (byte b : nonce) {
            if (b == 0) {
                throw new IllegalArgumentException("a nonce byte is never 0");
            }
        }
        return ByteBuffer.allocate(LENGTH).put(kind.magic).put(nonce).array();
    }

    /** Whether bytes [from, from+count) of {@code buf} agree with the start of a sync message of that kind. */
    static boolean prefixMatches(Kind kind, ByteBuffer buf, int from, int count) {
        int magicCount = Math.min(count, kind.magic.length);
        for (int i = 0; i < magicCount; i++) {
            if (buf.get(from + i) != kind.magic[i]) {
                return false;
            }
        }
        for (int i = kind.magic.length; i < count; i++) {
            if (buf.get(from + i) == 0) {
                return false;
            }
        }
        return true;
    }

    static String describe(byte[] nonce) {
        return Arrays.toString(nonce);
    }
}
