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

    /**
     * This process's resident memory, "N MiB (anonymous A, file F, shared S)" from /proc/self/status
     * (VmRSS and its RssAnon, RssFile, RssShmem parts), or "unknown". The anonymous part is what the
     * agent's JVM allocated. The file and shared parts are its mapped files (libjvm, the class data):
     * none on the image's agent root, whose files DAX maps from the host, and, on an initramfs root,
     * pages the guest holds in RAM whether mapped or not.
     */
    public static String resident() {
        try {
            double total = -1;
            double anon = -1;
            double file = -1;
            double shmem = -1;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                switch (line.substring(0, colon)) {
                    case "VmRSS" -> total = mib(line);
                    case "RssAnon" -> anon = mib(line);
                    case "RssFile" -> file = mib(line);
                    case "RssShmem" -> shmem = mib(line);
                    default -> { }
                }
            }
            return total < 0 ? "unknown"
                    : String.format(Locale.ROOT, "%.1f MiB (anonymous %.1f, file %.1f, shared %.1f)", total, anon, file, shmem);
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static double mib(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("[^0-9]", "")) / 1024.0;
    }

    /**
     * When the calling thread began, in seconds since the kernel started (its /proc/thread-self/stat
     * start time, in the kernel's 100 Hz clock ticks), or -1. Called from main(), this is the moment the
     * java launcher, having loaded libjvm, started the thread that creates the JVM: what the kernel and
     * the launcher took lies before it, the JVM's creation and the main class after.
     */
    public static double threadStart() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(fields[19]) / 100.0; // field 22 of stat(5); the first after ") " is field 3
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
