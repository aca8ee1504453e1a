package io.jrunc.seccomp.tables;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.SyscallTable;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Set;

/**
 * One architecture's table (libseccomp 2.5.4 as Debian's 2.5.4-1+deb12u1 ships it, which adds Linux
 * 6.7's calls up to 456), from the string constants GeneratedSyscallTables holds.
 *
 * <p>Why strings: every {@code jrunc create} is a cold JVM. One string constant is a single
 * constant-pool entry and nothing to run. Names are looked up in GeneratedSyscallTables.INDEX, a hash
 * index laid out by the generator (open addressing over String.hashCode, which the language fixes),
 * whose entries hold the name's offset in UNIVERSE, its number on each of jrunc's architectures and
 * x86's multiplexer: one lookup answers a name for all of them and whether libseccomp knows it at all,
 * with nothing parsed and nothing allocated (the compiler resolves each name of podman's profile once,
 * see SeccompCompiler). The index is ASCII, 6 bits a char: resolving a constant with other chars
 * takes the JVM's slow path (0.2 ms for the 16 KB of a Latin-1 encoding). Measured on the launcher's cold JVM with its AOT cache: compiling podman's profile
 * went from about 8.3 to 4.8 ms (median of 21 interleaved runs) when this replaced parsing the three
 * architectures' strings into HashMaps and splitting UNIVERSE for names x86-64 lacks. Only number-to-name ({@link #name}, {@link #names}) parses the architecture's own
 * string, on first use. The constants are compile-time constants, so javac copies them into this class
 * and GeneratedSyscallTables itself is never loaded (Maven recompiles the whole module when it is
 * regenerated, so the copies cannot go stale); for the same reason {@link #encoded} and
 * {@link #column} are if-chains, not enum switches (which cost a synthetic class).
 */
public final class ArchSyscallTable implements SyscallTable {
    private static final ArchSyscallTable[] TABLES = new ArchSyscallTable[Arch.values().length];
    /** The layout of GeneratedSyscallTables.INDEX (the generator's SLOT_CHARS, ENTRY_BITS, ENTRY_CHARS...). */
    private static final int SLOT_CHARS = 3, ENTRY_BITS = 9, ENTRY_MASK = (1 << ENTRY_BITS) - 1,
            HASH_MASK = (1 << 9) - 1, ENTRY_CHARS = 15, INDEX_MASK = (1 << GeneratedSyscallTables.INDEX_BITS) - 1,
            ENTRIES = (1 << GeneratedSyscallTables.INDEX_BITS) * SLOT_CHARS;
    private static final byte[] INDEX = indexBytes();

    private final Arch arch;
    /** A generated table (its names are the index's), not one of {@link #parse}. */
    private final boolean generated;
    /** The parsed table ({@link #name}, {@link #names}); a generated one's is null until first used. */
    private volatile Parsed parsed;

    /** Number to name: ascending numbers, names[i] being numbers[i]'s, and the name to number map. */
    private record Parsed(int[] numbers, String[] names, HashMap<String, Integer> byName) {}

    private ArchSyscallTable(Arch arch, Parsed parsed) {
        this.arch = arch;
        this.generated = parsed == null;
        this.parsed = parsed;
    }

    /** The architecture's table, made once (synchronized: uncontended, and it keeps this plain). */
    public static synchronized SyscallTable of(Arch arch) {
        ArchSyscallTable table = TABLES[arch.ordinal()];
        if (table == null) {
            table = new ArchSyscallTable(arch, null);
            TABLES[arch.ordinal()] = table;
        }
        return table;
    }

    /** Whether libseccomp knows the name on any architecture (not only jrunc's five). */
    public static boolean known(String name) {
        return entry(name) >= 0;
    }

    /**
     * The name's entry in the index, or -1 when libseccomp does not know the name: the key to
     * {@link #number(int, Arch)} on every architecture and to {@link #x86Multiplexer}.
     */
    public static int entry(String name) {
        byte[] index = INDEX;
        int hash = name.hashCode();
        int check = hash & HASH_MASK;
        int slot = (hash * GeneratedSyscallTables.INDEX_SEED) >>> (32 - GeneratedSyscallTables.INDEX_BITS);
        while (true) {
            int at = slot * SLOT_CHARS;
            int value = (index[at] & 63) << 12 | (index[at + 1] & 63) << 6 | (index[at + 2] & 63);
            if (value == 0) {
                return -1;
            }
            int entry = (value & ENTRY_MASK) - 1;
            if (value >>> ENTRY_BITS == check && named(entry, name)) {
                return entry;
            }
            slot = (slot + 1) & INDEX_MASK;
        }
    }

    /** Whether UNIVERSE holds exactly name at the entry's offset. */
    private static boolean named(int entry, String name) {
        byte[] index = INDEX;
        int at = ENTRIES + entry * ENTRY_CHARS;
        int offset = (index[at] & 63) << 12 | (index[at + 1] & 63) << 6 | (index[at + 2] & 63);
        String universe = GeneratedSyscallTables.UNIVERSE;
        int end = offset + name.length();
        return universe.regionMatches(offset, name, 0, name.length())
                && (end == universe.length() || universe.charAt(end) == ' ');
    }

    /** The number on arch of the name of entry ({@link #entry}, not -1), or {@link SyscallTable#ABSENT}. */
    public static int number(int entry, Arch arch) {
        int at = ENTRIES + entry * ENTRY_CHARS + 3 + 2 * column(arch);
        int c = (INDEX[at] & 63) << 6 | (INDEX[at + 1] & 63);
        if (c == GeneratedSyscallTables.NO_NUMBER) {
            return ABSENT;
        }
        int nr = c < GeneratedSyscallTables.ARM_PRIVATE ? c : 0x0f0000 + (c - GeneratedSyscallTables.ARM_PRIVATE);
        return arch == Arch.X32 ? nr | Arch.X32_SYSCALL_BIT : nr;
    }

    /** {@link #number(int, Arch)} on archs[0 .. count - 1] into out, in one call; entry -1: all ABSENT. */
    public static void numbers(int entry, Arch[] archs, int count, int[] out) {
        for (int f = 0; f < count; f++) {
            out[f] = entry < 0 ? ABSENT : number(entry, archs[f]);
        }
    }

    /**
     * For a socket or SysV IPC call that libseccomp's x86 resolves to a multiplexer's pseudo number
     * (__PNR_socket = -101 ... __PNR_sendmmsg = -120, __PNR_semop = -201 ... __PNR_shmctl = -224), that
     * number negated; 0 for every other name. The entry is {@link #entry}'s, not -1.
     */
    public static int x86Multiplexer(int entry) {
        int at = ENTRIES + entry * ENTRY_CHARS + 13;
        return (INDEX[at] & 63) << 6 | (INDEX[at + 1] & 63);
    }

    /** The index's ASCII chars as bytes: one array copy (Latin-1 to bytes), then plain array reads. */
    @SuppressWarnings("deprecation")
    private static byte[] indexBytes() {
        String index = GeneratedSyscallTables.INDEX;
        byte[] bytes = new byte[index.length()];
        index.getBytes(0, bytes.length, bytes, 0);
        return bytes;
    }

    /** The architecture's number column in the index (the generator's ARCH_COLUMNS). */
    private static int column(Arch arch) {
        if (arch == Arch.X86_64) {
            return 0;
        } else if (arch == Arch.X86) {
            return 1;
        } else if (arch == Arch.X32) {
            return 2;
        } else if (arch == Arch.AARCH64) {
            return 3;
        } else if (arch == Arch.ARM) {
            return 4;
        }
        throw new IllegalArgumentException("no generated syscall table for " + arch);
    }

    /** The libseccomp version the tables come from, and the package ("libseccomp2 2.5.4-1+deb12u1"). */
    public static String libseccompVersion() {
        return GeneratedSyscallTables.LIBSECCOMP_VERSION + " (" + GeneratedSyscallTables.PACKAGE + ")";
    }

    private static String encoded(Arch arch) {
        if (arch == Arch.X86_64) {
            return GeneratedSyscallTables.X86_64;
        } else if (arch == Arch.X86) {
            return GeneratedSyscallTables.X86;
        } else if (arch == Arch.X32) {
            return GeneratedSyscallTables.X32;
        } else if (arch == Arch.AARCH64) {
            return GeneratedSyscallTables.AARCH64;
        } else if (arch == Arch.ARM) {
            return GeneratedSyscallTables.ARM;
        }
        throw new IllegalArgumentException("no generated syscall table for " + arch);
    }

    /**
     * Parses the generator's encoding: entries in ascending number order separated by single spaces,
     * "name" meaning the previous entry's number plus one, "name@number" (decimal) an explicit number.
     */
    static ArchSyscallTable parse(Arch arch, String encoded) {
        return new ArchSyscallTable(arch, parsed(encoded));
    }

    private static Parsed parsed(String encoded) {
        // split(" ") takes String's single-character fast path: no regex is compiled.
        String[] tokens = encoded.split(" ");
        int[] numbers = new int[tokens.length];
        String[] names = new String[tokens.length];
        int nr = -1;
        for (int i = 0; i < tokens.length; i++) {
            String token = tokens[i];
            int at = token.indexOf('@');
            if (at < 0) {
                nr++;
                names[i] = token;
            } else {
                nr = Integer.parseInt(token, at + 1, token.length(), 10);
                names[i] = token.substring(0, at);
            }
            numbers[i] = nr;
        }
        // Sized so the map never rehashes (default load factor 0.75).
        HashMap<String, Integer> byName = HashMap.newHashMap(names.length);
        for (int i = 0; i < names.length; i++) {
            byName.put(names[i], numbers[i]);
        }
        return new Parsed(numbers, names, byName);
    }

    private Parsed parsed() {
        Parsed p = parsed;
        if (p == null) {
            // Racing threads at worst both parse the same string.
            p = parsed(encoded(arch));
            parsed = p;
        }
        return p;
    }

    @Override
    public Arch arch() {
        return arch;
    }

    @Override
    public int number(String name) {
        if (!generated) {
            Integer nr = parsed.byName().get(name);
            return nr == null ? ABSENT : nr;
        }
        int entry = entry(name);
        return entry < 0 ? ABSENT : number(entry, arch);
    }

    /** Exact: on x32 only numbers with the x32 bit have names (without it they are x86-64's calls). */
    @Override
    public String name(int nr) {
        Parsed p = parsed();
        int i = Arrays.binarySearch(p.numbers(), nr);
        return i >= 0 ? p.names()[i] : null;
    }

    @Override
    public Set<String> names() {
        return Collections.unmodifiableSet(parsed().byName().keySet());
    }

    @Override
    public int highest() {
        int[] numbers = parsed().numbers();
        return numbers[numbers.length - 1];
    }

    @Override
    public String toString() {
        return "SyscallTable[" + arch + ", " + parsed().names().length + " names, libseccomp " + libseccompVersion() + "]";
    }
}
