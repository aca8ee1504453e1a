package io.jrunc.agent.api.tar;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a POSIX tar stream (ustar headers; a pax extended header before an entry whose name or link
 * target is longer than ustar holds or not ASCII, whose size, uid or gid exceeds its octal field, or
 * whose mtime has a fraction of a second). GNU tar, bsdtar and Go's archive/tar read it. Only regular
 * files, directories and symbolic links are written; a directory's name gets a trailing slash, as tar
 * writes it.
 */
public final class TarWriter implements AutoCloseable {
    static final int BLOCK = 512;
    private static final long MAX_OCTAL_11 = 077777777777L;
    private static final long MAX_OCTAL_7 = 07777777L;

    private final OutputStream out;
    private long pending; // bytes of the current file's data still to come
    private boolean finished;

    public TarWriter(OutputStream out) {
        this.out = out;
    }

    /** Writes a regular file's entry and {@code entry.size()} bytes of {@code data}. */
    public void write(TarEntry entry, InputStream data) throws IOException {
        begin(entry);
        byte[] buffer = new byte[64 * 1024];
        while (pending > 0) {
            int n = data.read(buffer, 0, (int) Math.min(buffer.length, pending));
            if (n < 0) {
                throw new IOException(entry.name() + ": the file shrank while it was copied (" + pending
                        + " bytes short)");
            }
            out.write(buffer, 0, n);
            pending -= n;
        }
        pad(entry.size());
    }

    /** Writes a directory's or a symbolic link's entry. */
    public void write(TarEntry entry) throws IOException {
        if (entry.kind() == TarEntry.Kind.FILE) {
            throw new IllegalArgumentException("entry " + entry.name() + ": a regular file needs its data");
        }
        begin(entry);
    }

    private void begin(TarEntry entry) throws IOException {
        if (entry.kind() == TarEntry.Kind.OTHER) {
            throw new IllegalArgumentException("entry " + entry.name() + ": only files, directories and links are written");
        }
        String name = entry.kind() == TarEntry.Kind.DIRECTORY && !entry.name().endsWith("/") ? entry.name() + "/" : entry.name();
        Map<String, String> pax = new LinkedHashMap<>();
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > 100 || !ascii(name)) {
            pax.put("path", name);
        }
        if (entry.kind() == TarEntry.Kind.SYMLINK) {
            byte[] link = entry.linkTarget().getBytes(StandardCharsets.UTF_8);
            if (link.length > 100 || !ascii(entry.linkTarget())) {
                pax.put("linkpath", entry.linkTarget());
            }
        }
        if (entry.size() > MAX_OCTAL_11) {
            pax.put("size", Long.toString(entry.size()));
        }
        if (entry.uid() > MAX_OCTAL_7 || entry.uid() < 0) {
            pax.put("uid", Long.toString(entry.uid()));
        }
        if (entry.gid() > MAX_OCTAL_7 || entry.gid() < 0) {
            pax.put("gid", Long.toString(entry.gid()));
        }
        if (entry.mtimeNanos() != 0 || entry.mtimeSeconds() < 0 || entry.mtimeSeconds() > MAX_OCTAL_11) {
            pax.put("mtime", PaxRecords.time(entry.mtimeSeconds(), entry.mtimeNanos()));
        }
        if (!pax.isEmpty()) {
            byte[] records = PaxRecords.encode(pax);
            out.write(header("./PaxHeaders/" + shortName(name), 'x', 0644, 0, 0, 0, records.length, ""));
            out.write(records);
            pad(records.length);
        }
        char type = switch (entry.kind()) {
            case FILE -> '0';
            case DIRECTORY -> '5';
            case SYMLINK -> '2';
            case OTHER -> throw new AssertionError();
        };
        out.write(header(name, type, entry.mode(), entry.uid(), entry.gid(), entry.mtimeSeconds(), entry.size(),
                entry.kind() == TarEntry.Kind.SYMLINK ? entry.linkTarget() : ""));
        pending = entry.size();
    }

    /** Ends the stream with its two zero blocks (the writer's stream is left open). */
    public void finish() throws IOException {
        if (!finished) {
            out.write(new byte[2 * BLOCK]);
            out.flush();
            finished = true;
        }
    }

    @Override
    public void close() throws IOException {
        finish();
    }

    private void pad(long size) throws IOException {
        int rest = (int) (size % BLOCK);
        if (rest != 0) {
            out.write(new byte[BLOCK - rest]);
        }
    }

    private static String shortName(String name) {
        String base = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
        base = base.substring(base.lastIndexOf('/') + 1);
        StringBuilder b = new StringBuilder();
        for (char c : base.toCharArray()) {
            b.append(c < 0x80 && c >= 0x20 ? c : '_');
        }
        return b.length() > 80 ? b.substring(0, 80) : b.toString();
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** A ustar header; fields that do not fit were carried by the pax header before it and are clipped here. */
    static byte[] header(String name, char type, int mode, long uid, long gid, long mtime, long size, String link) {
        byte[] h = new byte[BLOCK];
        field(h, 0, 100, name.getBytes(StandardCharsets.UTF_8));
        octal(h, 100, 8, mode & 07777);
        octal(h, 108, 8, uid > MAX_OCTAL_7 || uid < 0 ? 0 : uid);
        octal(h, 116, 8, gid > MAX_OCTAL_7 || gid < 0 ? 0 : gid);
        octal(h, 124, 12, size > MAX_OCTAL_11 ? 0 : size);
        octal(h, 136, 12, mtime > MAX_OCTAL_11 || mtime < 0 ? 0 : mtime);
        h[156] = (byte) type;
        field(h, 157, 100, link.getBytes(StandardCharsets.UTF_8));
        field(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        field(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        octal(h, 148, 7, sum); // six digits, NUL, and the space already there
        return h;
    }

    private static void field(byte[] h, int offset, int length, byte[] value) {
        System.arraycopy(value, 0, h, offset, Math.min(length, value.length));
    }

    /** Zero-padded octal digits filling {@code length - 1} bytes, then NUL. */
    private static void octal(byte[] h, int offset, int length, long value) {
        String digits = Long.toOctalString(value);
        int width = length - 1;
        if (digits.length() > width) {
            throw new IllegalArgumentException("value " + value + " does not fit a " + length + "-byte tar field");
        }
        digits = "0".repeat(width - digits.length()) + digits;
        field(h, offset, width, digits.getBytes(StandardCharsets.US_ASCII));
        h[offset + width] = 0;
    }
}
