package io.jrunc.runtime;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.Program;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Compiled seccomp programs kept in the state root, {@code ROOT/@cache/seccomp}, so that a profile is
 * compiled once, not at every create: podman, containerd and Docker send the same default profile
 * with every container, and its compile is the largest cost a profile adds to a create on a cold JVM
 * (docs/seccomp.md, docs/PERFORMANCE.md). crun keeps such a cache in its state root too
 * ({@code .cache/seccomp}).
 *
 * <p>An entry holds the whole canonical form of what it was compiled from (the profile, the native
 * architecture and the identity of this build's jars) and is used only when that form equals the
 * profile's byte for byte: the file name is a 64-bit hash of it, so a collision is only a miss, never
 * another profile's program. It is trusted as the state directories are: the root is root's, 0700.
 * '@' is not in a container ID's character set, so no container can take the directory's name, and
 * {@code list} shows only directories with a state.json. A cache that cannot be read or written is
 * skipped: the profile is compiled as without it, and create never fails for it. At most
 * {@value #MAX_ENTRIES} entries: a new one past that clears the others.
 */
final class SeccompCache {
    static final String DIRECTORY = "@cache/seccomp";
    static final int MAX_ENTRIES = 64;
    private static final int MAGIC = 0x6a725343; // "jrSC", then the format version
    private static final int VERSION = 1;

    private final Path dir;

    SeccompCache(Path root) {
        this.dir = root.resolve(DIRECTORY);
    }

    /** What an entry is compiled from, in a canonical byte form; equal bytes, equal programs. */
    static byte[] key(LinuxSeccomp seccomp, Arch arch) {
        Canonical out = new Canonical();
        out.string(buildIdentity());
        out.string(arch.specName());
        out.string(seccomp.defaultAction());
        out.integer(seccomp.defaultErrnoRet());
        out.strings(seccomp.architectures());
        out.strings(seccomp.flags());
        out.string(seccomp.listenerPath());
        out.string(seccomp.listenerMetadata());
        List<LinuxSyscall> rules = seccomp.syscalls();
        out.count(rules);
        if (rules != null) {
            for (LinuxSyscall rule : rules) {
                out.strings(rule.names());
                out.string(rule.action());
                out.integer(rule.errnoRet());
                out.count(rule.args());
                if (rule.args() != null) {
                    for (LinuxSeccompArg arg : rule.args()) {
                        out.integer(arg.index());
                        out.longValue(arg.value());
                        out.longValue(arg.valueTwo());
                        out.string(arg.op());
                    }
                }
            }
        }
        return out.bytes();
    }

    /** The filter kept under {@code key}, or null when there is none or the entry does not hold exactly that key. */
    CompiledFilter load(byte[] key) {
        Path file = dir.resolve(fileName(key));
        byte[] data;
        try {
            if (!Files.isRegularFile(file)) {
                return null; // a stat, not a NoSuchFileException (whose construction a cold JVM pays)
            }
            data = Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data))) {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                return null;
            }
            byte[] stored = new byte[in.readInt()];
            in.readFully(stored);
            if (!Arrays.equals(stored, key)) {
                return null;
            }
            int flags = in.readInt();
            boolean usesNotify = in.readBoolean();
            int unknown = in.readInt();
            List<String> names = new ArrayList<>(unknown);
            for (int i = 0; i < unknown; i++) {
                names.add(in.readUTF());
            }
            byte[] program = new byte[in.readInt()];
            in.readFully(program);
            if (in.available() != 0) {
                return null;
            }
            if (Log.isDebug()) {
                Log.debug("seccomp: profile's program from " + file);
            }
            return new CompiledFilter(Program.fromBytes(program), flags, usesNotify, names);
        } catch (IOException | RuntimeException e) {
            return null; // a torn or foreign file: compiled again and replaced
        }
    }

    /** Keeps {@code filter} under {@code key}; written whole to a temporary file and renamed into place. */
    void store(byte[] key, CompiledFilter filter) {
        if (Log.isDebug()) {
            Log.debug("seccomp: profile compiled, kept in " + dir.resolve(fileName(key)));
        }
        try {
            Files.createDirectories(dir.getParent().getParent()); // the root, as create makes it
            Files.createDirectories(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            trim();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.writeInt(key.length);
                out.write(key);
                out.writeInt(filter.flags());
                out.writeBoolean(filter.usesNotify());
                out.writeInt(filter.unknownNames().size());
                for (String name : filter.unknownNames()) {
                    out.writeUTF(name);
                }
                byte[] program = filter.program().toBytes();
                out.writeInt(program.length);
                out.write(program);
            }
            // A name of this process's own (its pid: a create stores one entry), not Files.createTempFile's
            // random one, whose SecureRandom costs a cold JVM milliseconds. The pid is read from /proc/self,
            // not through FFM: this thread's first downcall would contend with the creating thread's, which
            // links FFM meanwhile (~15 ms more, measured). CREATE_NEW: a stale file of a dead process is not
            // written through.
            Path temporary = dir.resolve(".entry-" + Files.readSymbolicLink(Path.of("/proc/self")) + ".tmp");
            Files.deleteIfExists(temporary);
            try {
                Files.write(temporary, bytes.toByteArray(), java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE);
                Files.move(temporary, dir.resolve(fileName(key)), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException | UncheckedIOException e) {
            if (Log.isDebug()) {
                Log.debug("seccomp cache: " + dir + ": " + e.getMessage() + " (not kept)");
            }
        }
    }

    /** Past {@value #MAX_ENTRIES} entries (profiles made per container, say), start over. */
    private void trim() throws IOException {
        List<Path> entries = new ArrayList<>();
        try (java.nio.file.DirectoryStream<Path> list = Files.newDirectoryStream(dir)) { // no stream pipeline on a cold JVM
            for (Path entry : list) {
                entries.add(entry);
            }
        }
        if (entries.size() >= MAX_ENTRIES) {
            for (Path p : entries) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** FNV-1a, 64 bits, as hex: a name, not a proof (load compares the whole key). */
    static String fileName(byte[] key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        String hex = Long.toHexString(h);
        return "0".repeat(16 - hex.length()) + hex;
    }

    /**
     * This build: each class path entry's path, size and modification time. A rebuilt jar, whose
     * compiler may decide otherwise, never reads an older build's entries. (A cryptographic digest of
     * the jars would cost a cold JVM its security providers' start-up on every create.)
     */
    private static String buildIdentity() {
        StringBuilder id = new StringBuilder();
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            try {
                BasicFileAttributes a = Files.readAttributes(Path.of(entry), BasicFileAttributes.class);
                id.append(entry).append('\0').append(a.size()).append('\0')
                        .append(a.lastModifiedTime().toMillis()).append('\0');
            } catch (IOException e) {
                id.append(entry).append("\0?\0");
            }
        }
        return id.toString();
    }

    /**
     * Length-prefixed fields, with null told apart from empty, so that distinct profiles never encode
     * alike; big-endian ints as DataOutputStream writes them. A growable array of its own: the key is
     * made on every create with a profile, by interpreted code, and DataOutputStream over a
     * ByteArrayOutputStream is several synchronized calls a field.
     */
    private static final class Canonical {
        private byte[] bytes = new byte[16384];
        private int size;

        void string(String s) {
            if (s == null) {
                writeInt(-1);
                return;
            }
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            writeInt(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, bytes, size, b.length);
            size += b.length;
        }

        void strings(List<String> list) {
            count(list);
            if (list != null) {
                for (int i = 0; i < list.size(); i++) { // not forEach: its lambda is linked on a cold JVM
                    string(list.get(i));
                }
            }
        }

        void count(List<?> list) {
            writeInt(list == null ? -1 : list.size());
        }

        void integer(Integer v) {
            writeInt(v == null ? 0 : 1);
            writeInt(v == null ? 0 : v);
        }

        void longValue(Long v) {
            writeInt(v == null ? 0 : 1);
            long value = v == null ? 0 : v;
            writeInt((int) (value >>> 32));
            writeInt((int) value);
        }

        private void writeInt(int v) {
            ensure(4);
            bytes[size] = (byte) (v >>> 24);
            bytes[size + 1] = (byte) (v >>> 16);
            bytes[size + 2] = (byte) (v >>> 8);
            bytes[size + 3] = (byte) v;
            size += 4;
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }

        byte[] bytes() {
            return Arrays.copyOf(bytes, size);
        }
    }
}
