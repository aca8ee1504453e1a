package io.jrunc.spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a bundle's config.json (or an exec process.json) and validates it: the one way configs enter
 * the runtime, so everything after it works on a checked {@link Spec}. Parsing is {@link SpecReader}'s
 * (no databind, for start-up time), which accepts and rejects exactly what {@link Json#read} does.
 */
public final class SpecLoader {

    /** The config file's name inside a bundle (bundle.md). */
    public static final String CONFIG_FILE = "config.json";

    private SpecLoader() {
    }

    /**
     * Reads, parses and validates {@code bundleDir/config.json}.
     *
     * @throws SpecException naming the JSON path of the first problem; a missing file reads as runc's
     *     {@code JSON specification file config.json not found}
     */
    public static Spec load(Path bundleDir) throws SpecException {
        return parse(readFile(bundleDir.resolve(CONFIG_FILE)));
    }

    /** Parses and validates a config given as JSON text. */
    public static Spec parse(String json) throws SpecException {
        return validated(SpecReader.readSpec(json));
    }

    /** Parses and validates a config given as UTF-8 JSON. */
    public static Spec parse(byte[] json) throws SpecException {
        return validated(SpecReader.readSpec(json));
    }

    /**
     * Reads and validates a lone {@link Process}, as {@code exec --process} takes it. Problem paths are
     * relative to the process object ({@code args: must not be empty}).
     */
    public static Process loadProcess(Path processJson) throws SpecException {
        Process process = SpecReader.readProcess(readFile(processJson));
        SpecValidator.validateProcess(process);
        return process;
    }

    private static Spec validated(Spec spec) throws SpecException {
        SpecValidator.validate(spec);
        return spec;
    }

    private static byte[] readFile(Path file) throws SpecException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new SpecException("", "JSON specification file " + file.getFileName() + " not found", e);
        } catch (IOException e) {
            throw new SpecException("", "cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
