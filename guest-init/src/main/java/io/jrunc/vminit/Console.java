package io.jrunc.vminit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The agent's log: one line per event on the console (PID 1's stdout is /dev/console, the first serial
 * port), each stamped with the seconds since the kernel started, so a failed boot can be read from the
 * host's serial log.
 */
public final class Console {
    private Console() {}

    public static synchronized void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "jrunc-vminit [%8.3f] %s%n", uptime(), String.format(Locale.ROOT, format, args));
        System.out.flush();
    }

    /** This process's resident memory in MiB (VmRSS), or -1 when /proc cannot say. */
    public static double residentMiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // reported as unknown
        }
        return -1;
    }

    /** Seconds since the kernel started (/proc/uptime), or -1 before /proc is mounted. */
    public static double uptime() {
        try {
            String text = Files.readString(Path.of("/proc/uptime"));
            return Double.parseDouble(text.substring(0, text.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
