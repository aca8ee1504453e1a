package io.jrunc.seccomp.tables;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.SyscallTable;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Set;

/**
 * One architecture's table, parsed on first use from the string GeneratedSyscallTables holds for it
 * (libseccomp 2.5.4 as Debian's 2.5.4-1+deb12u1 ships it, which adds Linux 6.7's calls up to 456).
 *
 * <p>Why strings: every {@code jrunc create} is a cold JVM. One string constant per architecture is a
 * single constant-pool entry, and only the container's architectures are ever parsed. Measured on a
 * cold JVM with the launcher's flags: x86-64's first use (loading this class, splitting, filling the
 * map) about 0.6 ms with an AOT cache and 1.7 ms without, then 400 lookups about 0.2 ms; array
 * initializers were no faster and make 2.5 times larger class files. The constants are compile-time
 * constants, so javac copies them into this class and GeneratedSyscallTables itself is never loaded
 * (Maven recompiles the whole module when it is regenerated, so the copies cannot go stale); for the
 * same reason {@link #encoded} is an if-chain, not an enum switch (which costs a synthetic class).
 */
public final class ArchSyscallTable implements SyscallTable {
    private static final ArchSyscallTable[] TABLES = new ArchSyscallTable[Arch.values().length];
    private static volatile String[] universe;

    private final Arch arch;
    /** Ascending; names[i] is numbers[i]'s name. */
    private final int[] numbers;
    private final String[] names;
    private final HashMap<String, Integer> byName;

    private ArchSyscallTable(Arch arch, int[] numbers, String[] names) {
        this.arch = arch;
        this.numbers = numbers;
        this.names = names;
        // Sized so the map never rehashes (default load factor 0.75).
        this.byName = HashMap.newHashMap(names.length);
        for (int i = 0; i < names.length; i++) {
            byName.put(names[i], numbers[i]);
        }
    }

    /** The architecture's table, parsed once (synchronized: uncontended, and it keeps this plain). */
    public static synchronized SyscallTable of(Arch arch) {
        ArchSyscallTable table = TABLES[arch.ordinal()];
        if (table == null) {
            table = parse(arch, encoded(arch));
            TABLES[arch.ordinal()] = table;
        }
        return table;
    }

    /** Whether libseccomp knows the name on any architecture (not only jrunc's five). */
    public static boolean known(String name) {
        String[] names = universe;
        if (names == null) {
            // Sorted by the generator with String.compareTo, which binarySearch uses. Racing threads
            // at worst both split the same string. About 0.35 ms cold, paid only by a profile that
            // names a call the architecture lacks.
            names = GeneratedSyscallTables.UNIVERSE.split(" ");
            universe = names;
        }
        return Arrays.binarySearch(names, name) >= 0;
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
        return new ArchSyscallTable(arch, numbers, names);
    }

    @Override
    public Arch arch() {
        return arch;
    }

    @Override
    public int number(String name) {
        Integer nr = byName.get(name);
        return nr == null ? ABSENT : nr;
    }

    /** Exact: on x32 only numbers with the x32 bit have names (without it they are x86-64's calls). */
    @Override
    public String name(int nr) {
        int i = Arrays.binarySearch(numbers, nr);
        return i >= 0 ? names[i] : null;
    }

    @Override
    public Set<String> names() {
        return Collections.unmodifiableSet(byName.keySet());
    }

    @Override
    public int highest() {
        return numbers[numbers.length - 1];
    }

    @Override
    public String toString() {
        return "SyscallTable[" + arch + ", " + names.length + " names, libseccomp " + libseccompVersion() + "]";
    }
}
