package io.jrunc.shim;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jrunc.containerd.api.runtimeoptions.Options;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The shim's runtime options: which back end runs the tasks, and settings for it. containerd hands a
 * runtime other than runc a {@code runtimeoptions.v1.Options} (from the CRI plugin's {@code options}
 * table, or {@code ctr run --runtime-config-path}): the configuration is TOML, in the file
 * {@code config_path} names or inline in {@code config_body}:
 *
 * <pre>
 * backend = "vm"        # "host" (the default) or "vm"
 * [vm]                  # settings for the VM back end, passed to it as they are
 * memory = "512m"
 * </pre>
 *
 * No options at all means the host back end. An unknown key or table, a bad value or options of
 * another type (runc's) is an error naming it, so that a typo never silently picks the wrong back end.
 *
 * @param settings the chosen back end's table, key to value as written (strings unquoted)
 */
public record ShimOptions(Backend backend, Map<String, String> settings) {
    public enum Backend { HOST, VM }

    public static final ShimOptions DEFAULTS = new ShimOptions(Backend.HOST, Map.of());

    public ShimOptions {
        settings = Map.copyOf(settings);
    }

    /** The type URL containerd's typeurl registry gives runtimeoptions.v1.Options. */
    static final String OPTIONS_TYPE = "runtimeoptions.v1.Options";

    /** A wrong option: the message names it, for the one line containerd shows. */
    public static final class OptionsException extends Exception {
        public OptionsException(String message) {
            super(message);
        }
    }

    /** From the bytes of a google.protobuf.Any (start's stdin); empty bytes are the defaults. */
    public static ShimOptions fromAnyBytes(byte[] bytes) throws OptionsException {
        if (bytes.length == 0) {
            return DEFAULTS;
        }
        try {
            return fromAny(Any.parseFrom(bytes));
        } catch (InvalidProtocolBufferException e) {
            throw new OptionsException("runtime options: not a protobuf Any: " + e.getMessage());
        }
    }

    /** From CreateTaskRequest.options (or start's stdin, parsed); an unset Any is the defaults. */
    public static ShimOptions fromAny(Any any) throws OptionsException {
        if (any.getTypeUrl().isEmpty() && any.getValue().isEmpty()) {
            return DEFAULTS;
        }
        String type = any.getTypeUrl().substring(any.getTypeUrl().lastIndexOf('/') + 1);
        if (!type.equals(OPTIONS_TYPE)) {
            throw new OptionsException("runtime options of type " + any.getTypeUrl() + " are not supported: "
                    + "io.containerd.jrunc.v2 takes " + OPTIONS_TYPE + " (config_path or config_body)");
        }
        Options options;
        try {
            options = Options.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
            throw new OptionsException("runtime options: bad " + OPTIONS_TYPE + ": " + e.getMessage());
        }
        return fromOptions(options);
    }

    static ShimOptions fromOptions(Options options) throws OptionsException {
        if (!options.getConfigPath().isEmpty()) {
            Path path = Path.of(options.getConfigPath());
            if (!path.isAbsolute()) {
                throw new OptionsException("runtime options: config_path " + path + " is not absolute");
            }
            try {
                return parse(Files.readString(path, StandardCharsets.UTF_8), path.toString());
            } catch (NoSuchFileException e) {
                throw new OptionsException("runtime options: config_path " + path + " does not exist");
            } catch (IOException e) {
                throw new OptionsException("runtime options: reading config_path " + path + ": " + e.getMessage());
            }
        }
        ByteString body = options.getConfigBody();
        return body.isEmpty() ? DEFAULTS : parse(body.toStringUtf8(), "config_body");
    }

    /** The TOML subset above; {@code source} names where it came from in messages. */
    public static ShimOptions parse(String toml, String source) throws OptionsException {
        Backend backend = Backend.HOST;
        Map<Backend, Map<String, String>> tables = new LinkedHashMap<>();
        Backend table = null;
        int lineNumber = 0;
        for (String raw : toml.split("\n", -1)) {
            lineNumber++;
            String line = stripComment(raw).strip();
            if (line.isEmpty()) {
                continue;
            }
            String where = source + " line " + lineNumber;
            if (line.startsWith("[")) {
                if (!line.endsWith("]")) {
                    throw new OptionsException("runtime options: " + where + ": bad table header " + line);
                }
                String name = line.substring(1, line.length() - 1).strip();
                table = backendNamed(name, where, "unknown table [" + name + "] (known: [host], [vm])");
                if (tables.containsKey(table)) {
                    throw new OptionsException("runtime options: " + where + ": table [" + name + "] repeated");
                }
                tables.put(table, new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new OptionsException("runtime options: " + where + ": expected key = value");
            }
            String key = line.substring(0, eq).strip();
            if (!key.matches("[A-Za-z0-9_-]+")) {
                throw new OptionsException("runtime options: " + where + ": bad key " + key);
            }
            String value = value(line.substring(eq + 1).strip(), where + " (" + key + ")");
            if (table == null) {
                if (!key.equals("backend")) {
                    throw new OptionsException("runtime options: " + where + ": unknown option " + key
                            + " (known: backend, and the tables [host] and [vm])");
                }
                backend = backendNamed(value, where, "backend must be \"host\" or \"vm\", not \"" + value + "\"");
            } else if (tables.get(table).put(key, value) != null) {
                throw new OptionsException("runtime options: " + where + ": " + key + " repeated");
            }
        }
        ShimOptions options = new ShimOptions(backend, tables.getOrDefault(backend, Map.of()));
        ShimSharing.of(options); // its settings refused here, where start sees them
        return options;
    }

    private static Backend backendNamed(String name, String where, String error) throws OptionsException {
        return switch (name) {
            case "host" -> Backend.HOST;
            case "vm" -> Backend.VM;
            default -> throw new OptionsException("runtime options: " + where + ": " + error);
        };
    }

    /** A basic string (with \" \\ \n \t escapes), a literal string, an integer or a boolean. */
    private static String value(String text, String where) throws OptionsException {
        if (text.startsWith("\"")) {
            StringBuilder out = new StringBuilder();
            for (int i = 1; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '"') {
                    if (i != text.length() - 1) {
                        break;
                    }
                    return out.toString();
                }
                if (c == '\\' && i + 1 < text.length()) {
                    char e = text.charAt(++i);
                    switch (e) {
                        case '"', '\\' -> out.append(e);
                        case 'n' -> out.append('\n');
                        case 't' -> out.append('\t');
                        default -> throw new OptionsException("runtime options: " + where + ": bad escape \\" + e);
                    }
                } else {
                    out.append(c);
                }
            }
            throw new OptionsException("runtime options: " + where + ": bad string " + text);
        }
        if (text.startsWith("'")) {
            if (text.length() < 2 || !text.endsWith("'") || text.substring(1, text.length() - 1).contains("'")) {
                throw new OptionsException("runtime options: " + where + ": bad string " + text);
            }
            return text.substring(1, text.length() - 1);
        }
        if (text.equals("true") || text.equals("false") || text.matches("[+-]?[0-9][0-9_]*")) {
            return text.toLowerCase(Locale.ROOT).replace("_", "");
        }
        throw new OptionsException("runtime options: " + where + ": unsupported value " + text
                + " (a string, an integer or a boolean)");
    }

    /** A line without its comment: a # outside a string. */
    private static String stripComment(String line) {
        boolean basic = false;
        boolean literal = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && basic) {
                i++;
            } else if (c == '"' && !literal) {
                basic = !basic;
            } else if (c == '\'' && !basic) {
                literal = !literal;
            } else if (c == '#' && !basic && !literal) {
                return line.substring(0, i);
            }
        }
        return line;
    }
}
