package io.jrunc.seccomp.tables;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes GeneratedSyscallTables.java from what the installed libseccomp knows, asked through its own
 * API (seccomp_syscall_resolve_num_arch and seccomp_syscall_resolve_name_arch), so the tables are
 * libseccomp's by construction rather than copied from its sources. Run by seccomp/tables/generate.sh:
 * {@code GenerateSyscallTables <output file> <"package version" for the header>}.
 *
 * <p>The universe of names: libseccomp's table has one row per name and, on every architecture, either
 * a real number or a negative pseudo number (__PNR_*); resolve_num answers for both, so scanning the
 * real and the pseudo ranges of every architecture finds every row.
 *
 * <p>An architecture's table: each name whose resolve_name is a real number, plus x86's socket and ipc
 * calls. For those resolve_name answers a multiplexing pseudo number (-101..-120, -201..-224: libseccomp
 * then filters both socketcall/ipc and the direct call); the direct number the kernel also accepts
 * (socket = 359) is the one resolve_num gives back, and that is what the table holds. The compiler
 * decides what to do about the multiplexers.
 */
public final class GenerateSyscallTables {
    /** jrunc's architectures, as named in Libseccomp.ARCH_TOKENS and io.jrunc.seccomp.Arch. */
    static final Map<String, String> OURS = Map.of(
            "x86_64", "X86_64", "x86", "X86", "x32", "X32", "aarch64", "AARCH64", "arm", "ARM");

    static final int X32_SYSCALL_BIT = 0x40000000;

    /**
     * Real numbers: 0 up to past mips64n32's 6000 base, and ARM's private calls at 0x0f0000 and up
     * (breakpoint = 0x0f0001 ... get_tls = 0x0f0006). x32's resolve_num ignores the x32 bit, so the
     * same scan serves it.
     */
    static final int[][] REAL_RANGES = {{0, 8192}, {0x0f0000, 0x0f1000}};

    /** Pseudo numbers: the multiplexers' -101..-224 and __PNR_* from -10000 down (-10244 in 2.5.4). */
    static final int[] PSEUDO_RANGE = {-20000, 0};

    private GenerateSyscallTables() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: GenerateSyscallTables <output .java> <package and version>");
            System.exit(2);
        }
        TreeSet<String> universe = universe();
        Map<String, TreeMap<Integer, String>> tables = new TreeMap<>();
        for (String arch : OURS.keySet()) {
            tables.put(arch, table(arch, universe));
        }
        String source = render(Libseccomp.version(), args[1], universe, tables);
        Files.writeString(Path.of(args[0]), source);
        System.out.printf("libseccomp %s: %d names;", Libseccomp.version(), universe.size());
        tables.forEach((arch, t) -> System.out.printf(" %s %d (highest %#x)", arch, t.size(), t.lastKey()));
        System.out.println();
    }

    /** Every name libseccomp knows, on any architecture. */
    static TreeSet<String> universe() {
        TreeSet<String> names = new TreeSet<>();
        for (int token : Libseccomp.ARCH_TOKENS.values()) {
            names.addAll(scanReal(token).values());
            for (int nr = PSEUDO_RANGE[0]; nr < PSEUDO_RANGE[1]; nr++) {
                Libseccomp.name(token, nr).ifPresent(names::add);
            }
        }
        // Every row has a value in every column: a name one architecture resolves to nothing would mean
        // the scan found something that is not a table row.
        for (String name : names) {
            Libseccomp.ARCH_TOKENS.forEach((arch, token) -> check(Libseccomp.number(token, name) != Libseccomp.NR_SCMP_ERROR,
                    "%s: unknown on %s", name, arch));
        }
        return names;
    }

    /** resolve_num over the real ranges: number (as given to resolve_num) to name. */
    static Map<Integer, String> scanReal(int token) {
        Map<Integer, String> found = new HashMap<>();
        for (int[] range : REAL_RANGES) {
            for (int nr = range[0]; nr < range[1]; nr++) {
                int n = nr;
                Libseccomp.name(token, nr).ifPresent(name -> found.put(n, name));
            }
        }
        return found;
    }

    /** One of our architectures: the numbers the kernel sees in seccomp_data.nr, to names. */
    static TreeMap<Integer, String> table(String arch, TreeSet<String> universe) {
        int token = Libseccomp.ARCH_TOKENS.get(arch);
        boolean x32 = arch.equals("x32");
        // Direct numbers by name, from the number side. For x32 add the bit, which resolve_num drops.
        Map<String, Integer> direct = new HashMap<>();
        scanReal(token).forEach((nr, name) -> {
            Integer previous = direct.put(name, x32 ? nr | X32_SYSCALL_BIT : nr);
            check(previous == null, "%s: %s has two numbers, %s and %d", arch, name, previous, nr);
        });
        TreeMap<Integer, String> table = new TreeMap<>();
        for (String name : universe) {
            int nr = Libseccomp.number(token, name);
            if (nr >= 0) {
                // x32: libseccomp's public resolve_name already includes the bit (x32_syscall_resolve_name_munge).
                check(!x32 || (nr & X32_SYSCALL_BIT) != 0, "x32: %s = %#x lacks the x32 bit", name, nr);
                check(Integer.valueOf(nr).equals(direct.get(name)), "%s: %s is %d by name, %s by number", arch, name, nr, direct.get(name));
            } else if (isMultiplexed(nr) && direct.containsKey(name)) {
                nr = direct.get(name);
            } else {
                continue; // a pseudo number: the arch lacks the call
            }
            String other = table.put(nr, name);
            check(other == null, "%s: %d is both %s and %s", arch, nr, other, name);
        }
        // And the other way: every number resolve_num names is in the table under that name.
        direct.forEach((name, nr) -> check(name.equals(table.get(nr)), "%s: %d is %s by number, %s in the table", arch, nr, name, table.get(nr)));
        return table;
    }

    /** libseccomp's socketcall (-101..-120) and ipc (-201..-224) pseudo numbers. */
    static boolean isMultiplexed(int nr) {
        return (nr <= -100 && nr >= -120) || (nr <= -200 && nr >= -224);
    }

    /**
     * One architecture's table as ArchSyscallTable parses it: the entries in ascending number order,
     * separated by single spaces, each "name" when its number is the previous one's plus one, or
     * "name@number" (decimal) otherwise and for the first.
     */
    static List<String> encode(TreeMap<Integer, String> table) {
        List<String> tokens = new ArrayList<>();
        Integer previous = null;
        for (Map.Entry<Integer, String> e : table.entrySet()) {
            boolean next = previous != null && e.getKey() == previous + 1;
            tokens.add(next ? e.getValue() : e.getValue() + "@" + e.getKey());
            previous = e.getKey();
        }
        return tokens;
    }

    static String render(String version, String pkg, TreeSet<String> universe, Map<String, TreeMap<Integer, String>> tables) {
        StringBuilder out = new StringBuilder();
        out.append("// GENERATED by seccomp/tables/generate.sh (GenerateSyscallTables) from libseccomp ").append(version)
                .append(" (Debian package ").append(pkg).append(").\n")
                .append("// Do not edit by hand: run seccomp/tables/generate.sh again.\n")
                .append("package io.jrunc.seccomp.tables;\n\n")
                .append("/**\n")
                .append(" * libseccomp ").append(version).append("'s syscall tables, as seccomp_syscall_resolve_name_arch and\n")
                .append(" * seccomp_syscall_resolve_num_arch answer them: per architecture, in the encoding ArchSyscallTable\n")
                .append(" * parses for number to name, space-separated entries in ascending number order, \"name\" (the\n")
                .append(" * previous number plus one) or \"name@number\"; and INDEX, the hash index it looks names up in\n")
                .append(" * (every name's number on every architecture at once). Numbers are seccomp_data.nr's: x32's\n")
                .append(" * include the x32 bit.\n")
                .append(" *\n")
                .append(" * <p>Only compile-time constants: javac copies them into ArchSyscallTable, so this class is never\n")
                .append(" * loaded at run time (one class fewer on every cold start).\n")
                .append(" */\n")
                .append("final class GeneratedSyscallTables {\n")
                .append("    private GeneratedSyscallTables() {}\n\n")
                .append("    /** The libseccomp version these tables are (the test compares them with the installed one). */\n")
                .append("    static final String LIBSECCOMP_VERSION = \"").append(version).append("\";\n\n")
                .append("    /** The libseccomp package they were generated from. */\n")
                .append("    static final String PACKAGE = \"").append(pkg).append("\";\n");
        for (Map.Entry<String, TreeMap<Integer, String>> e : tables.entrySet()) {
            out.append("\n    /** ").append(e.getKey()).append(": ").append(e.getValue().size()).append(" names. */\n");
            constant(out, OURS.get(e.getKey()), encode(e.getValue()));
        }
        out.append("\n    /** Every name libseccomp knows on any architecture (").append(universe.size())
                .append("), sorted by String.compareTo, space-separated. */\n");
        constant(out, "UNIVERSE", new ArrayList<>(universe));
        Index index = index(universe, tables);
        out.append("\n    /**\n")
                .append("     * The name index ArchSyscallTable looks names up in without parsing anything, in ASCII so that\n")
                .append("     * resolving the constant is cheap (a non-ASCII char takes the JVM's slow path: about 0.2 ms more\n")
                .append("     * for 16 KB on a cold JVM). Each char carries 6 bits ('@' + value), fields are big-endian runs\n")
                .append("     * of chars. First ").append(1 << INDEX_BITS).append(" slots of ").append(SLOT_CHARS)
                .append(" chars, open addressing with linear probing from slot\n")
                .append("     * {@code (name.hashCode() * INDEX_SEED) >>> (32 - INDEX_BITS)}: 0 for a free slot, else the low ")
                .append(HASH_BITS).append(" bits of\n")
                .append("     * the name's String.hashCode above its entry's number plus one (").append(ENTRY_BITS)
                .append(" bits). Then the entries, one per\n")
                .append("     * UNIVERSE name in its order, ").append(ENTRY_CHARS)
                .append(" chars each: the name's offset in UNIVERSE (3 chars), its number on\n")
                .append("     * x86-64, x86, x32, aarch64 and arm (2 chars each; NO_NUMBER: absent; ARM_PRIVATE and up: ARM's\n")
                .append("     * 0x0f0000 plus the rest; x32's without the x32 bit), and on x86 the negated pseudo number\n")
                .append("     * libseccomp resolves a socketcall or ipc call to (101 to 120, 201 to 224; 0 for other names).\n")
                .append("     * The longest probe is ").append(index.longestProbe).append(" slots.\n")
                .append("     */\n")
                .append("    static final int INDEX_BITS = ").append(INDEX_BITS).append(";\n\n")
                .append("    /** The multiplier the generator chose for the shortest probes. */\n")
                .append("    static final int INDEX_SEED = 0x").append(Integer.toHexString(index.seed)).append(";\n\n")
                .append("    static final int NO_NUMBER = 0x").append(Integer.toHexString(NO_NUMBER))
                .append(", ARM_PRIVATE = 0x").append(Integer.toHexString(ARM_PRIVATE)).append(";\n\n");
        asciiConstant(out, "INDEX", index.chars);
        out.append("}\n");
        return out.toString();
    }

    /** log2 of the index's slots: 1024 for libseccomp 2.5.4's 487 names. */
    static final int INDEX_BITS = 10;
    /** A slot: HASH_BITS of the name's hashCode, then ENTRY_BITS of its entry's number plus one. */
    static final int SLOT_CHARS = 3, HASH_BITS = 9, ENTRY_BITS = 9;
    /** An entry: the name's offset in UNIVERSE, its number on each of ARCH_COLUMNS, its x86 multiplexer. */
    static final int ENTRY_CHARS = 3 + 2 * 5 + 2;
    /** The index's number columns, in this order (ArchSyscallTable's column()). */
    static final List<String> ARCH_COLUMNS = List.of("x86_64", "x86", "x32", "aarch64", "arm");
    static final int NO_NUMBER = 0xfff, ARM_PRIVATE = 0xf00;

    record Index(int seed, int longestProbe, char[] chars) {}

    /** The slot a name's probe starts at, as ArchSyscallTable computes it. */
    static int home(String name, int seed) {
        return (name.hashCode() * seed) >>> (32 - INDEX_BITS);
    }

    /**
     * The name index: of a fixed sequence of odd multipliers, the first with the shortest longest probe
     * (lookups probe until a free slot either way; the choice only makes them shorter).
     */
    static Index index(TreeSet<String> universe, Map<String, TreeMap<Integer, String>> tables) {
        int size = 1 << INDEX_BITS;
        check(universe.size() * 2 <= size, "%d names do not fit %d slots at half load", universe.size(), size);
        check(universe.size() < (1 << ENTRY_BITS), "%d names do not fit %d bits", universe.size(), ENTRY_BITS);
        List<String> names = new ArrayList<>(universe);
        int bestSeed = 0;
        int best = Integer.MAX_VALUE;
        long state = 0x9E3779B97F4A7C15L;
        for (int attempt = 0; attempt < 20000; attempt++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            int seed = (int) (state >>> 32) | 1;
            int longest = place(names, seed, new int[size]);
            if (longest < best) {
                best = longest;
                bestSeed = seed;
            }
        }
        int[] slots = new int[size];
        place(names, bestSeed, slots);
        char[] chars = new char[size * SLOT_CHARS + names.size() * ENTRY_CHARS];
        for (int slot = 0; slot < size; slot++) {
            int entry = slots[slot];
            int value = entry == 0 ? 0
                    : (names.get(entry - 1).hashCode() & ((1 << HASH_BITS) - 1)) << ENTRY_BITS | entry;
            put(chars, slot * SLOT_CHARS, SLOT_CHARS, value);
        }
        List<Map<String, Integer>> byName = new ArrayList<>();
        for (String arch : ARCH_COLUMNS) {
            Map<String, Integer> numbers = new HashMap<>();
            tables.get(arch).forEach((nr, name) -> numbers.put(name, nr));
            byName.add(numbers);
        }
        int x86 = Libseccomp.ARCH_TOKENS.get("x86");
        int offset = 0;
        for (int e = 0; e < names.size(); e++) {
            String name = names.get(e);
            int at = size * SLOT_CHARS + e * ENTRY_CHARS;
            put(chars, at, 3, offset);
            offset += name.length() + 1;
            for (int c = 0; c < ARCH_COLUMNS.size(); c++) {
                Integer nr = byName.get(c).get(name);
                put(chars, at + 3 + 2 * c, 2, nr == null ? NO_NUMBER : encodeNumber(ARCH_COLUMNS.get(c), nr));
            }
            int pseudo = Libseccomp.number(x86, name);
            put(chars, at + 3 + 2 * ARCH_COLUMNS.size(), 2, isMultiplexed(pseudo) ? -pseudo : 0);
        }
        return new Index(bestSeed, best, chars);
    }

    /** value as n chars of 6 bits, big-endian, each '@' + its bits (0x40 to 0x7f: ASCII). */
    private static void put(char[] chars, int at, int n, int value) {
        check(value >= 0 && value < 1 << (6 * n), "%d does not fit %d chars", value, n);
        for (int i = n - 1; i >= 0; i--) {
            chars[at + i] = (char) ('@' + (value & 63));
            value >>>= 6;
        }
    }

    /** Places the names (in order) by linear probing; returns the longest probe, fills slots (entry + 1). */
    private static int place(List<String> names, int seed, int[] slots) {
        int size = 1 << INDEX_BITS;
        int longest = 0;
        for (int e = 0; e < names.size(); e++) {
            int slot = home(names.get(e), seed);
            int probe = 1;
            while (slots[slot] != 0) {
                slot = (slot + 1) & (size - 1);
                probe++;
            }
            slots[slot] = e + 1;
            longest = Math.max(longest, probe);
        }
        return longest;
    }

    /** A number as the index holds it (ArchSyscallTable.number is the inverse). */
    static int encodeNumber(String arch, int nr) {
        if (arch.equals("x32")) {
            check((nr & X32_SYSCALL_BIT) != 0, "x32: %#x lacks the x32 bit", nr);
            nr &= ~X32_SYSCALL_BIT;
        }
        if (nr >= 0 && nr < ARM_PRIVATE) {
            return nr;
        }
        check(arch.equals("arm") && nr >= 0x0f0000 && nr < 0x0f0000 + (NO_NUMBER - ARM_PRIVATE),
                "%s: %#x does not fit the index", arch, nr);
        return ARM_PRIVATE + (nr - 0x0f0000);
    }

    /** An ASCII string constant, 96 chars to a line (a backslash and DEL escaped). */
    static void asciiConstant(StringBuilder out, String name, char[] chars) {
        out.append("    static final String ").append(name).append(" =\n");
        for (int i = 0; i < chars.length; i += 96) {
            out.append("            \"");
            for (int j = i; j < Math.min(i + 96, chars.length); j++) {
                char c = chars[j];
                check(c > 0x20 && c < 0x80 && c != '"', "%s: char %d", name, (int) c);
                out.append(c == '\\' ? "\\\\" : c == 0x7f ? "\\177" : String.valueOf(c));
            }
            out.append(i + 96 < chars.length ? "\" +\n" : "\";\n");
        }
    }

    /** A string constant split over lines of at most ~100 columns; javac folds the pieces into one. */
    static void constant(StringBuilder out, String name, List<String> tokens) {
        out.append("    static final String ").append(name).append(" =\n");
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i) + (i + 1 < tokens.size() ? " " : "");
            if (line.length() > 0 && line.length() + token.length() > 88) {
                out.append("            \"").append(line).append("\" +\n");
                line.setLength(0);
            }
            line.append(token);
        }
        out.append("            \"").append(line).append("\";\n");
    }

    static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new IllegalStateException(String.format(format, args));
        }
    }
}
