package io.jrunc.runtime;

import io.jrunc.spec.UtcText;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * runc's logging contract (logrus): text lines {@code time="..." level=error msg="..."} or JSON lines
 * {@code {"level":"error","msg":"...","time":"..."}} to --log (appended) or stderr. Callers read the
 * last error line of the JSON log as the failure message (containerd) or show its msg (podman).
 */
public final class Log {
    private Log() {}

    public enum Format { TEXT, JSON }

    private static Path file;
    private static Format format = Format.TEXT;
    private static boolean debug;

    public static void configure(Path logFile, Format logFormat, boolean debugEnabled) {
        file = logFile;
        format = logFormat;
        debug = debugEnabled;
    }

    public static boolean isDebug() {
        return debug;
    }

    public static boolean toFile() {
        return file != null;
    }

    public static void error(String msg) {
        write("error", msg);
    }

    public static void warn(String msg) {
        write("warning", msg);
    }

    public static void debug(String msg) {
        if (debug) {
            write("debug", msg);
        }
    }

    private static void write(String level, String msg) {
        String time = UtcText.of(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        String line = format == Format.JSON
                ? "{\"level\":\"" + level + "\",\"msg\":" + quote(msg) + ",\"time\":\"" + time + "\"}\n"
                : "time=\"" + time + "\" level=" + level + " msg=" + quote(msg) + "\n";
        if (file != null) {
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(line.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                System.err.print(line);
            }
        } else {
            PrintStream err = System.err;
            err.print(line);
            err.flush();
        }
    }

    /** A JSON/Go-quoted string (logrus quotes text values the same way for our purposes). */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
