package io.jrunc.runtime;

import java.util.Locale;
import java.util.Map;

/** Signal names and numbers as runc's kill accepts them: "KILL", "SIGKILL", "kill" or "9". Linux x86-64/aarch64. */
public final class Signals {
    private Signals() {}

    public static final Map<String, Integer> BY_NAME = Map.ofEntries(
            Map.entry("HUP", 1), Map.entry("INT", 2), Map.entry("QUIT", 3), Map.entry("ILL", 4),
            Map.entry("TRAP", 5), Map.entry("ABRT", 6), Map.entry("IOT", 6), Map.entry("BUS", 7),
            Map.entry("FPE", 8), Map.entry("KILL", 9), Map.entry("USR1", 10), Map.entry("SEGV", 11),
            Map.entry("USR2", 12), Map.entry("PIPE", 13), Map.entry("ALRM", 14), Map.entry("TERM", 15),
            Map.entry("STKFLT", 16), Map.entry("CHLD", 17), Map.entry("CLD", 17), Map.entry("CONT", 18),
            Map.entry("STOP", 19), Map.entry("TSTP", 20), Map.entry("TTIN", 21), Map.entry("TTOU", 22),
            Map.entry("URG", 23), Map.entry("XCPU", 24), Map.entry("XFSZ", 25), Map.entry("VTALRM", 26),
            Map.entry("PROF", 27), Map.entry("WINCH", 28), Map.entry("IO", 29), Map.entry("POLL", 29),
            Map.entry("PWR", 30), Map.entry("SYS", 31));

    public static int parse(String signal) {
        try {
            int n = Integer.parseInt(signal);
            if (n <= 0 || n > 64) {
                throw new ContainerException("invalid signal: " + signal);
            }
            return n;
        } catch (NumberFormatException e) {
            String name = signal.toUpperCase(Locale.ROOT);
            if (name.startsWith("SIG")) {
                name = name.substring(3);
            }
            Integer n = BY_NAME.get(name);
            if (n == null) {
                throw new ContainerException("unknown signal \"" + signal + "\"");
            }
            return n;
        }
    }
}
