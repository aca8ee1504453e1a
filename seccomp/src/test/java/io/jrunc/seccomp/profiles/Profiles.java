package io.jrunc.seccomp.profiles;

import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.Spec;
import io.jrunc.spec.SpecException;
import io.jrunc.spec.SpecReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Real seccomp profiles, in the form a runtime receives them (the {@code linux.seccomp} object of a
 * bundle's config.json), for tests that compare the compiler's decisions with libseccomp's. The files
 * are test resources under {@code /profiles/}; README.md there says where each came from.
 *
 * <p>The captured objects are read the way jrunc reads a bundle: wrapped into a minimal config.json and
 * parsed with {@link SpecReader#readSpec(String)} (oci-spec has no reader for a lone seccomp object), so
 * they reach the compiler exactly as they would from podman's or containerd's config.json.
 */
public final class Profiles {

    private Profiles() {
    }

    /**
     * One profile.
     *
     * @param name short name for test display, e.g. {@code podman-default}.
     * @param source where it comes from (engine, version, options).
     */
    public record NamedProfile(String name, String source, LinuxSeccomp seccomp) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** podman 4.3.1's profile for a default rootful container (11 capabilities, from containers.conf). */
    public static LinuxSeccomp podmanDefault() {
        return readOci("podman-default.json");
    }

    /** podman 4.3.1's profile with {@code --cap-add SYS_ADMIN}. */
    public static LinuxSeccomp podmanSysAdmin() {
        return readOci("podman-sys-admin.json");
    }

    /** containerd 1.6.20's profile for {@code ctr run --seccomp} (contrib/seccomp, default capabilities). */
    public static LinuxSeccomp containerdDefault() {
        return readOci("containerd-default.json");
    }

    /** moby 20.10.24's default.json converted for a default docker container on x86-64, Linux 6.18. */
    public static LinuxSeccomp mobyDefault() {
        return DockerProfile.convert(resource("moby-default.json"), DockerProfile.Target.DOCKER_AMD64_LINUX_6_18);
    }

    /** moby's default.json converted for a docker container with {@code --cap-add SYS_ADMIN}. */
    public static LinuxSeccomp mobySysAdmin() {
        return DockerProfile.convert(resource("moby-default.json"),
                DockerProfile.Target.DOCKER_AMD64_LINUX_6_18.withCapabilities("CAP_SYS_ADMIN"));
    }

    /** Every profile here, e.g. for a parameterized test. */
    public static List<NamedProfile> all() {
        return List.of(
                new NamedProfile("podman-default", "podman 4.3.1 bundle, default options", podmanDefault()),
                new NamedProfile("podman-sys-admin", "podman 4.3.1 bundle, --cap-add SYS_ADMIN", podmanSysAdmin()),
                new NamedProfile("containerd-default", "containerd 1.6.20 bundle, ctr run --seccomp",
                        containerdDefault()),
                new NamedProfile("moby-default", "moby 20.10.24 default.json, default caps, amd64, Linux 6.18",
                        mobyDefault()),
                new NamedProfile("moby-sys-admin", "moby 20.10.24 default.json, + CAP_SYS_ADMIN, amd64, Linux 6.18",
                        mobySysAdmin()));
    }

    /** A captured linux.seccomp object, parsed by jrunc's config.json reader. */
    static LinuxSeccomp readOci(String file) {
        String config = "{\"ociVersion\":\"1.0.2\",\"linux\":{\"seccomp\":" + resource(file) + "}}";
        try {
            Spec spec = SpecReader.readSpec(config);
            return spec.linux().seccomp();
        } catch (SpecException e) {
            throw new IllegalStateException(file + ": " + e.getMessage(), e);
        }
    }

    /** The text of {@code /profiles/<file>} on the test class path. */
    static String resource(String file) {
        try (InputStream in = Profiles.class.getResourceAsStream("/profiles/" + file)) {
            if (in == null) {
                throw new IllegalStateException("test resource /profiles/" + file + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
