package io.jrunc.agent.api.tar;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Reads a tar stream: ustar and old-style headers, pax extended headers ('x': path, linkpath, size,
 * uid, gid, mtime; 'g' read past), GNU long names and link targets ('L', 'K'), and numeric fields in
 * octal or GNU's base-256. Every header's checksum is checked. Member names are returned as written:
 * callers check them with {@link TarNames}. The stream ends at a zero block, or at end of input
 * where a header would begin; end of input anywhere else is an error (a truncated stream).
 */
public final class TarReader {
    private static final int BLOCK = TarWriter.BLOCK;
    private static final int MAX_EXTENDED = 1 << 20;

    private final InputStream in;
    private long remaining; // data bytes of the current member not yet read
    private long padding;
    private boolean ended;

    public TarReader(InputStream in) {
        this.in = in;
    }

    /** The next member, or null at the end of the stream. Data the caller left unread is skipped. */
    public TarEntry next() throws IOException {
        skip(remaining + padding);
        remaining = 0;
        padding = 0;
        if (ended) {
            return null;
        }
        Map<String, String> pax = Map.of();
        String longName = null;
        String longLink = null;
        while (true) {
            byte[] h = new byte[BLOCK];
            int got = readFully(h);
            if (got == 0 || (got == BLOCK && zero(h))) {
                ended = true;
                return null;
            }
            if (got < BLOCK) {
                throw new EOFException("the tar stream ends inside a header");
            }
            checkSum(h);
            char type = (char) h[156];
            long size = number(h, 124, 12);
            if (size < 0) {
                throw new IOException("a tar header with a negative size");
            }
            switch (type) {
                case 'x', 'g', 'L', 'K' -> {
                    if (size > MAX_EXTENDED) {
                        throw new IOException("a tar extended header of " + size + " bytes");
                    }
                    byte[] data = new byte[(int) size];
                    if (readFully(data) < size) {
                        throw new EOFException("the tar stream ends inside an extended header");
                    }
                    skip(pad(size));
                    if (type == 'x') {
                        pax = PaxRecords.decode(data);
                    } else if (type == 'L') {
                        longName = cString(data, 0, data.length);
                    } else if (type == 'K') {
                        longLink = cString(data, 0, data.length);
                    }
                    continue;
                }
                default -> {
                    // an entry: below
                }
            }
            String name = cString(h, 0, 100);
            if (magicUstar(h)) {
                String prefix = cString(h, 345, 155);
                if (!prefix.isEmpty()) {
                    name = prefix + "/" + name;
                }
            }
            if (longName != null) {
                name = longName;
            }
            String link = longLink != null ? longLink : cString(h, 157, 100);
            long uid = number(h, 108, 8);
            long gid = number(h, 116, 8);
            long mtime = number(h, 136, 12);
            int nanos = 0;
            name = pax.getOrDefault("path", name);
            link = pax.getOrDefault("linkpath", link);
            try {
                if (pax.containsKey("size")) {
                    size = Long.parseLong(pax.get("size"));
                }
                if (pax.containsKey("uid")) {
                    uid = Long.parseLong(pax.get("uid"));
                }
                if (pax.containsKey("gid")) {
                    gid = Long.parseLong(pax.get("gid"));
                }
            } catch (NumberFormatException e) {
                throw new IOException("a pax record with a number that does not parse (" + name + ")");
            }
            if (pax.containsKey("mtime")) {
                long[] t = PaxRecords.parseTime(pax.get("mtime"));
                mtime = t[0];
                nanos = (int) t[1];
            }
            int mode = (int) (number(h, 100, 8) & 07777);
            TarEntry.Kind kind = switch (type) {
                case '0', '\0', '7' -> name.endsWith("/") ? TarEntry.Kind.DIRECTORY : TarEntry.Kind.FILE;
                case '5' -> TarEntry.Kind.DIRECTORY;
                case '2' -> TarEntry.Kind.SYMLINK;
                default -> TarEntry.Kind.OTHER;
            };
            // a hard link, device, FIFO carries no data: its size field says nothing about the stream
            long data = kind == TarEntry.Kind.FILE || kind == TarEntry.Kind.OTHER && type != '1' && type != '3'
                    && type != '4' && type != '6' ? size : 0;
            if (kind == TarEntry.Kind.DIRECTORY) {
                data = 0;
            }
            if (name.isEmpty()) {
                throw new IOException("a tar member without a name");
            }
            if (kind == TarEntry.Kind.SYMLINK && link.isEmpty()) {
                throw new IOException("tar member " + name + ": a symbolic link without a target");
            }
            remaining = data;
            padding = pad(data);
            return new TarEntry(name, kind, mode, uid, gid, mtime, nanos, kind == TarEntry.Kind.FILE ? size : 0,
                    kind == TarEntry.Kind.SYMLINK ? link : "");
        }
    }

    /** The current member's data, at most its size; reading past it returns end of file. */
    public InputStream content() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (remaining == 0) {
                    return -1;
                }
                int n = in.read(b, off, (int) Math.min(len, remaining));
                if (n < 0) {
                    throw new EOFException("the tar stream ends inside a member's data");
                }
                remaining -= n;
                return n;
            }
        };
    }

    private static long pad(long size) {
        long rest = size % BLOCK;
        return rest == 0 ? 0 : BLOCK - rest;
    }

    private void skip(long n) throws IOException {
        byte[] buffer = new byte[8192];
        while (n > 0) {
            int got = in.read(buffer, 0, (int) Math.min(buffer.length, n));
            if (got < 0) {
                throw new EOFException("the tar stream ends inside a member");
            }
            n -= got;
        }
    }

    private int readFully(byte[] b) throws IOException {
        int at = 0;
        while (at < b.length) {
            int n = in.read(b, at, b.length - at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        return at;
    }

    private static boolean zero(byte[] h) {
        for (byte b : h) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean magicUstar(byte[] h) {
        return h[257] == 'u' && h[258] == 's' && h[259] == 't' && h[260] == 'a' && h[261] == 'r' && h[262] == 0;
    }

    private static void checkSum(byte[] h) throws IOException {
        long stored = number(h, 148, 8);
        long unsigned = 0;
        long signed = 0;
        for (int i = 0; i < BLOCK; i++) {
            byte b = i >= 148 && i < 156 ? (byte) ' ' : h[i];
            unsigned += b & 0xff;
            signed += b;
        }
        if (stored != unsigned && stored != signed) {
            throw new IOException("a tar header whose checksum is wrong (not a tar stream, or damaged)");
        }
    }

    /** A numeric field: octal digits (spaces and NULs around them), or base-256 when the top bit is set. */
    static long number(byte[] h, int offset, int length) throws IOException {
        if ((h[offset] & 0x80) != 0) {
            long v = h[offset] & 0x3f;
            boolean negative = (h[offset] & 0x40) != 0;
            for (int i = 1; i < length; i++) {
                if (v > (Long.MAX_VALUE >> 8)) {
                    throw new IOException("a tar number field out of range");
                }
                v = (v << 8) | (h[offset + i] & 0xff);
            }
            return negative ? -1 : v;
        }
        long v = 0;
        boolean digits = false;
        for (int i = offset; i < offset + length; i++) {
            byte b = h[i];
            if (b == 0 || b == ' ') {
                if (digits) {
                    break;
                }
                continue;
            }
            if (b < '0' || b > '7') {
                throw new IOException("a tar header with a field that is not octal");
            }
            digits = true;
            v = v * 8 + (b - '0');
        }
        return v;
    }

    private static String cString(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        return new String(b, offset, end - offset, StandardCharsets.UTF_8);
    }
}
