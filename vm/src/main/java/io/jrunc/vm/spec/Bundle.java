package io.jrunc.vm.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.spec.JsonNodes;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * An OCI bundle as jrunc-vm reads it: config.json as a JSON tree (fields the host does not change go
 * to the guest exactly as written: the guest's runtime library validates them) and the rootfs
 * directory that becomes the container's image. Errors name the bundle and the file.
 */
public record Bundle(Path dir, ObjectNode config, Path rootfs) {
    public static Bundle load(Path dir) throws VmException {
        Path abs = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(abs)) {
            throw new VmException("bundle " + dir + " does not exist or is not a directory");
        }
        Path configFile = abs.resolve("config.json");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(configFile);
        } catch (NoSuchFileException e) {
            throw new VmException("bundle " + dir + ": " + configFile + " not found");
        } catch (IOException e) {
            throw new VmException("bundle " + dir + ": cannot read " + configFile + ": " + e.getMessage());
        }
        JsonNode tree;
        try {
            tree = JsonNodes.read(bytes); // no ObjectMapper: its set-up cost a cold `run` 300 ms
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new VmException(configFile + " does not parse: " + e.getOriginalMessage().lines().findFirst().orElse("")
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new VmException(configFile + " does not parse: " + e.getMessage());
        }
        if (!(tree instanceof ObjectNode config)) {
            throw new VmException(configFile + " does not parse: the document is not a JSON object");
        }
        JsonNode rootPath = config.path("root").path("path");
        if (!rootPath.isTextual() || rootPath.asText().isEmpty()) {
            throw new VmException(configFile + ": root.path is missing");
        }
        Path rootfs = abs.resolve(rootPath.asText()).normalize();
        if (!Files.isDirectory(rootfs)) {
            throw new VmException(configFile + ": root.path " + rootfs + " is not a directory");
        }
        return new Bundle(abs, config, rootfs);
    }
}
