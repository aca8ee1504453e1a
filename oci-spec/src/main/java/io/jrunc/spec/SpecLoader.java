package io.jrunc.spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

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

    /**
     * The largest config, process.json or resources document jrunc reads: 8 MiB. Real configs are tens
     * of kilobytes (Kubernetes caps all annotations at 256 KiB); parsing one takes about four times its
     * size at the peak (the bytes, the decoded text, the records), and jrunc's heap is 64 MB, where a
     * 50 MB document ended in OutOfMemoryError. runc has no limit (docs/ARCHITECTURE.md).
     */
    public static final long MAX_DOCUMENT_BYTES = 8L << 20;

    /** {@code input}'s bytes, refused past {@link #MAX_DOCUMENT_BYTES} before they are all read. */
    public static byte[] readLimited(java.io.InputStream input, String name) throws SpecException, IOException {
        byte[] bytes = input.readNBytes((int) MAX_DOCUMENT_BYTES + 1);
        if (bytes.length > MAX_DOCUMENT_BYTES) {
            throw tooLarge(name, "more than " + MAX_DOCUMENT_BYTES);
        }
        return bytes;
    }

    private static SpecException tooLarge(String name, String size) {
        return new SpecException("", name + " is " + size + " bytes, larger than the " + MAX_DOCUMENT_BYTES
                + " bytes (8 MiB) jrunc reads", null);
    }

    private static byte[] readFile(Path file) throws SpecException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (attributes.size() > MAX_DOCUMENT_BYTES) {
                throw tooLarge(file.getFileName().toString(), Long.toString(attributes.size()));
            }
            if (attributes.isRegularFile()) {
                return Files.readAllBytes(file);
            }
            // a device or FIFO has no size to check (/dev/zero would fill the heap): read it as stdin
            try (java.io.InputStream in = Files.newInputStream(file)) {
                return readLimited(in, file.getFileName().toString());
            }
        } catch (NoSuchFileException e) {
            throw new SpecException("", "JSON specification file " + file.getFileName() + " not found", e);
        } catch (IOException e) {
            throw new SpecException("", "cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
