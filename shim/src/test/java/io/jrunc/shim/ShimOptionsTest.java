package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.jrunc.containerd.api.runtimeoptions.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime options: runtimeoptions.v1.Options with a TOML config by path or inline. */
class ShimOptionsTest {
    private static Any any(Options o) {
        return Any.newBuilder().setTypeUrl("runtimeoptions.v1.Options").setValue(o.toByteString()).build();
    }

    @Test
    void noOptionsIsTheHostBackEnd() throws Exception {
        assertEquals(ShimOptions.DEFAULTS, ShimOptions.fromAnyBytes(new byte[0]));
        assertEquals(ShimOptions.DEFAULTS, ShimOptions.fromAny(Any.getDefaultInstance()));
        assertEquals(ShimOptions.DEFAULTS, ShimOptions.fromAny(any(Options.getDefaultInstance())));
    }

    @Test
    void inlineBodyChoosesTheVmBackEndWithItsTable() throws Exception {
        String toml = """
                # the pod's VM
                backend = "vm"   # comment after a value
                [host]
                ignored = 1
                [vm]
                memory = "512m"
                swap = '1g'
                debug = true
                """;
        ShimOptions o = ShimOptions.fromAny(any(Options.newBuilder().setConfigBody(ByteString.copyFromUtf8(toml)).build()));
        assertEquals(new ShimOptions(ShimOptions.Backend.VM, Map.of("memory", "512m", "swap", "1g", "debug", "true")), o);
    }

    @Test
    void configPathIsRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("jrunc.toml");
        Files.writeString(file, "backend = \"host\"\n");
        Any a = any(Options.newBuilder().setTypeUrl("io.jrunc.shim").setConfigPath(file.toString()).build());
        assertEquals(ShimOptions.DEFAULTS, ShimOptions.fromAnyBytes(a.toByteArray()));
        // with the type.googleapis.com/ prefix a Go protobuf Any may carry
        Any prefixed = a.toBuilder().setTypeUrl("type.googleapis.com/runtimeoptions.v1.Options").build();
        assertEquals(ShimOptions.DEFAULTS, ShimOptions.fromAny(prefixed));
    }

    @Test
    void wrongOptionsAreNamed(@TempDir Path dir) {
        assertEquals("runtime options: config_body line 1: unknown option backnd (known: backend, and the tables [host] and [vm])",
                message("backnd = \"vm\""));
        assertEquals("runtime options: config_body line 1: backend must be \"host\" or \"vm\", not \"kvm\"",
                message("backend = \"kvm\""));
        assertEquals("runtime options: config_body line 2: unknown table [qemu] (known: [host], [vm])",
                message("backend = \"vm\"\n[qemu]"));
        assertEquals("runtime options: config_body line 1 (backend): unsupported value [1] (a string, an integer or a boolean)",
                message("backend = [1]"));
        assertEquals("runtime options: config_body line 1: expected key = value", message("backend"));
        ShimOptions.OptionsException e = assertThrows(ShimOptions.OptionsException.class, () -> ShimOptions.fromAny(
                Any.newBuilder().setTypeUrl("containerd.runc.v1.Options").build()));
        assertEquals("runtime options of type containerd.runc.v1.Options are not supported: io.containerd.jrunc.v2 takes "
                + "runtimeoptions.v1.Options (config_path or config_body)", e.getMessage());
        e = assertThrows(ShimOptions.OptionsException.class, () -> ShimOptions.fromAny(
                any(Options.newBuilder().setConfigPath(dir.resolve("missing.toml").toString()).build())));
        assertEquals("runtime options: config_path " + dir.resolve("missing.toml") + " does not exist", e.getMessage());
        e = assertThrows(ShimOptions.OptionsException.class, () -> ShimOptions.fromAnyBytes(new byte[] {(byte) 0xff}));
        assertEquals(true, e.getMessage().startsWith("runtime options: not a protobuf Any"));
    }

    private static String message(String toml) {
        return assertThrows(ShimOptions.OptionsException.class, () -> ShimOptions.parse(toml, "config_body")).getMessage();
    }
}
