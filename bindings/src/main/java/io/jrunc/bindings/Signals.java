package io.jrunc.bindings;

import java.util.Locale;
import java.util.Map;

/**
 * Linux signal numbers and their names. The numbers are the kernel's, the same on x86-64 and aarch64
 * (arch/x86/include/uapi/asm/signal.h, include/uapi/asm-generic/signal.h); the names are those of
 * runc's kill and of kill(1): "KILL", "SIGKILL", "kill" or "9". Real-time signals have numbers only.
 */
public final class Signals {
    private Signals() {}

    public static final int SIGHUP = 1, SIGINT = 2, SIGQUIT = 3, SIGKILL = 9, SIGTERM = 15, SIGCHLD = 17,
            SIGCONT = 18, SIGSTOP = 19;

    /** The highest signal number (SIGRTMAX): the kernel's _NSIG is 64. */
    public static final int MAX = 64;

    static final Map<String, Integer> BY_NAME = Map.ofEntries(
            Map.entry("HUP", 1), Map.entry("INT", 2), Map.entry("QUIT", 3), Map.entry("ILL", 4),
            Map.entry("TRAP", 5), Map.entry("ABRT", 6), Map.entry("IOT", 6), Map.entry("BUS", 7),
            Map.entry("FPE", 8), Map.entry("KILL", 9), Map.entry("USR1", 10), Map.entry("SEGV", 11),
            Map.entry("USR2", 12), Map.entry("PIPE", 13), Map.entry("ALRM", 14), Map.entry("TERM", 15),
            Map.entry("STKFLT", 16), Map.entry("CHLD", 17), Map.entry("CLD", 17), Map.entry("CONT", 18),
            Map.entry("STOP", 19), Map.entry("TSTP", 20), Map.entry("TTIN", 21), Map.entry("TTOU", 22),
            Map.entry("URG", 23), Map.entry("XCPU", 24), Map.entry("XFSZ", 25), Map.entry("VTALRM", 26),
            Map.entry("PROF", 27), Map.entry("WINCH", 28), Map.entry("IO", 29), Map.entry("POLL", 29),
            Map.entry("PWR", 30), Map.entry("SYS", 31));

    /** What {@link #parse} made of a signal given by a user; each caller words the errors its own way. */
    public sealed interface Parsed {
        /** A signal number from 1 to {@link #MAX}. */
        record Signal(int number) implements Parsed {}

        /** A decimal number outside 1..{@link #MAX}. */
        record OutOfRange(String text) implements Parsed {}

        /** Neither a number nor a signal's name. */
        record UnknownName(String text) implements Parsed {}
    }

    /** A decimal number, or a name in any case with or without "SIG". */
    public static Parsed parse(String text) {
        try {
            int n = Integer.parseInt(text);
            return n >= 1 && n <= MAX ? new Parsed.Signal(n) : new Parsed.OutOfRange(text);
        } catch (NumberFormatException e) {
            String name = text.toUpperCase(Locale.ROOT);
            if (name.startsWith("SIG")) {
                name = name.substring(3);
            }
            Integer n = BY_NAME.get(name);
            return n == null ? new Parsed.UnknownName(text) : new Parsed.Signal(n);
        }
    }
}
