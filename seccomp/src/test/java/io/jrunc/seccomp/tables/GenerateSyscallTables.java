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
                .append(" * seccomp_syscall_resolve_num_arch answer them, in the encoding ArchSyscallTable parses: per\n")
                .append(" * architecture, space-separated entries in ascending number order, \"name\" (the previous number\n")
                .append(" * plus one) or \"name@number\". Numbers are seccomp_data.nr's: x32's include the x32 bit.\n")
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
        out.append("}\n");
        return out.toString();
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
