package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * buildah 1.28 (Debian's) with isolation oci driving jrunc: for `buildah run` and every RUN step of
 * `buildah bud` it re-executes itself as a small monitor that calls `jrunc --root=DIR create --bundle B
 * --pid-file B/pid ID`, `start`, polls `state` every 100 ms, waits for the container's process itself
 * (it is the process's subreaper) and calls `delete`. The global flags come from `--runtime-flag`, so
 * jrunc's state is in this class's directory (`--runtime-flag root=DIR`), as is everything else: vfs
 * storage (--root, --runroot, storage.conf), containers.conf, registries.conf, the signature policy,
 * the auth file, TMPDIR and the image copy directory. Two places ignore all of those: containers/image
 * writes its blob-info cache to /var/lib/containers/cache for root, and unpacks an oci-archive into
 * /var/tmp; so every buildah call runs in a private mount namespace with directories of this class
 * bind-mounted over both. No network (`--network none`).
 * buildah applies its default profile (/usr/share/containers/seccomp.json, default errno ENOSYS).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BuildahTest {
    private static final String BUILT = "localhost/jrunc-built:e2e";
    /** containers/image's blob-info cache directory for root (blobinfocache.systemBlobInfoCacheDir). */
    private static final Path HOST_CACHE = Path.of("/var/lib/containers/cache");
    private static final Path HOST_STORAGE = Path.of("/var/lib/containers/storage");
    private Path work;
    private Path jruncRoot;
    private String cgroupParent;
    private boolean hostStorageExisted;
    private Command cmd;
    private List<String> buildah;
    private List<String> runFlags;
    private Path policy;
    private Path jrunc;
    private final List<String> containers = new ArrayList<>();

    @BeforeAll
    void privateStore() throws Exception {
        E2eHost.requireRootAndCommands("buildah", "buildah", "tar", "unshare", "mount");
        jrunc = E2eHost.jrunc();
        hostStorageExisted = Files.exists(HOST_STORAGE);
        work = Files.createTempDirectory("jrunc-e2e-buildah-");
        cgroupParent = "/" + work.getFileName();
        jruncRoot = work.resolve("jrunc");
        Path tmp = Files.createDirectories(work.resolve("tmp"));
        Path conf = work.resolve("containers.conf");
        // clients.md: no CAP_SYS_RESOURCE here, no systemd or journald, no network for tests.
        Files.writeString(conf, """
                [containers]
                default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
                netns = "none"

                [engine]
                cgroup_manager = "cgroupfs"
                events_logger = "file"
                image_copy_tmp_dir = "%s"
                """.formatted(tmp));
        Path storageConf = work.resolve("storage.conf");
        Files.writeString(storageConf, """
                [storage]
                driver = "vfs"
                graphroot = "%s"
                runroot = "%s"
                """.formatted(work.resolve("storage"), work.resolve("runroot")));
        Path registries = work.resolve("registries.conf");
        Files.writeString(registries, "");
        Path auth = work.resolve("auth.json");
        Files.writeString(auth, "{\"auths\":{}}");
        policy = work.resolve("policy.json");
        Files.writeString(policy, "{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}");
        cmd = new Command(work.resolve("out"), Map.of("CONTAINERS_CONF", conf.toString(),
                "CONTAINERS_STORAGE_CONF", storageConf.toString(),
                "CONTAINERS_REGISTRIES_CONF", registries.toString(),
                "REGISTRY_AUTH_FILE", auth.toString(),
                "BUILDAH_ISOLATION", "oci",
                "TMPDIR", tmp.toString()));

        // In a mount namespace of the buildah call alone: a directory of ours over the deepest of
        // /var/lib/containers/cache, /var/lib/containers, /var/lib that exists, and our tmp over /var/tmp.
        Path shadowed = Stream.of(HOST_CACHE, HOST_CACHE.getParent(), HOST_CACHE.getParent().getParent())
                .filter(Files::isDirectory).findFirst().orElseThrow();
        Path shadow = Files.createDirectories(work.resolve("shadow"));
        buildah = List.of("unshare", "--mount", "--propagation", "private", "--",
                "sh", "-c", "mount --bind \"$1\" \"$2\" && { [ ! -d /var/tmp ] || mount --bind \"$3\" /var/tmp; } "
                        + "&& shift 3 && exec \"$@\"", "sh",
                shadow.toString(), shadowed.toString(), tmp.toString(),
                "buildah", "--root", work.resolve("storage").toString(), "--runroot", work.resolve("runroot").toString(),
                "--storage-driver", "vfs");
        runFlags = List.of("--isolation", "oci", "--runtime", jrunc.toString(),
                "--runtime-flag", "root=" + jruncRoot, "--network", "none");

        Path tar = E2eHost.busyboxRootfsTar(work, cmd);
        Path archive = E2eHost.ociArchive(work, tar, cmd);
        Command.Result pulled = cmd.run(buildah("pull", "--signature-policy", policy.toString(),
                "oci-archive:" + archive));
        assertEquals(0, pulled.exitCode(), pulled.describe());
        Command.Result images = cmd.run(buildah("images", "--format", "{{.Name}}:{{.Tag}}"));
        assertEquals(E2eHost.IMAGE + "\n", images.out(), images.describe());
        try (Stream<Path> cache = Files.walk(shadow)) {
            assertTrue(cache.anyMatch(p -> p.getFileName().toString().equals("blob-info-cache-v1.boltdb")),
                    "the pull's blob-info cache is not in " + shadow);
        }
    }

    @AfterEach
    void removeContainers() {
        for (String c : containers) {
            cmd.run(buildah("rm", c));
        }
        containers.clear();
    }

    @AfterAll
    void removeStore() {
        if (work == null) {
            return;
        }
        try {
            cmd.run(buildah("rm", "--all"));
            cmd.run(buildah("rmi", "--all", "--force"));
        } finally {
            List<String> states = jruncStates();
            for (String id : states) {
                cmd.run(List.of(jrunc.toString(), "--root", jruncRoot.toString(), "delete", "--force", id));
            }
            List<String> leftovers = E2eHost.killProcessesMentioning(work.toString());
            List<String> mounts = E2eHost.unmountUnder(work, cmd);
            List<Path> cgroups = E2eHost.cgroupDirs(cgroupParent);
            E2eHost.removeCgroupTree(cgroupParent);
            E2eHost.deleteTree(work);
            assertTrue(leftovers.isEmpty(), "processes left behind: " + leftovers);
            assertEquals(List.of(), states, "jrunc state left behind in " + jruncRoot);
            assertEquals(List.of(), mounts, "mounts left behind");
            assertEquals(List.of(), cgroups, "cgroups left behind");
            assertTrue(hostStorageExisted || !Files.exists(HOST_STORAGE), HOST_STORAGE + " was created");
        }
    }

    private List<String> buildah(String... args) {
        return Command.list(buildah, args);
    }

    /** `buildah from` the image into a working container named {@code name}; {@code flags} go before the image. */
    private void from(String name, String image, String... flags) {
        containers.add(name);
        List<String> c = buildah("from", "--signature-policy", policy.toString(), "--pull=never",
                "--cgroup-parent", cgroupParent, "--name", name);
        c.addAll(List.of(flags));
        c.add(image);
        Command.Result r = cmd.run(c);
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals(name + "\n", r.out(), r.describe());
    }

    /**
     * `buildah run` through jrunc. The container's stderr is merged into its stdout, so buildah's stderr,
     * which also carries whatever jrunc writes to its own stdio (the container's, while it creates it),
     * holds only buildah's line for a non-zero exit status.
     */
    private Command.Result run(String container, String script) {
        List<String> c = buildah("run");
        c.addAll(runFlags);
        c.addAll(List.of(container, "--", "sh", "-c", "exec 2>&1; " + script));
        Command.Result r = cmd.run(c);
        assertEquals(r.exitCode() == 0 ? "" : "Error: while running runtime: exit status " + r.exitCode() + "\n",
                r.err(), r.describe());
        return r;
    }

    /** Container ids with state under jrunc's root. */
    private List<String> jruncStates() {
        if (!Files.isDirectory(jruncRoot)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(jruncRoot)) {
            // @cache: compiled seccomp programs (SeccompCache), not a container's state
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals("@cache")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** jrunc made its root (so buildah did call it) and buildah deleted every container it created. */
    private void assertJruncRanAndLeftNothing() {
        assertTrue(Files.isDirectory(jruncRoot), "jrunc never ran: no " + jruncRoot);
        assertEquals(List.of(), jruncStates(), "jrunc state left behind in " + jruncRoot);
        assertEquals(List.of(), E2eHost.cgroupDirs(cgroupParent), "container cgroup left behind");
    }

    /**
     * The default profile reaches jrunc converted by buildah, defaultErrnoRet included: personality(2)
     * with ADDR_NO_RANDOMIZE (busybox `linux64 -R`), which the kernel allows anyone, is not among the
     * profile's allowed personality values, so it fails with the default errno, ENOSYS. With
     * `--security-opt seccomp=unconfined` the same call succeeds.
     */
    @Test
    void runIsFilteredByBuildahsDefaultProfile() {
        String probe = "grep -E '^Seccomp' /proc/self/status; linux64 -R cat /proc/self/personality; echo rc=$?";
        from("filtered1", E2eHost.IMAGE);
        Command.Result filtered = run("filtered1", probe);
        assertEquals(0, filtered.exitCode(), filtered.describe());
        assertEquals("Seccomp:\t2\nSeccomp_filters:\t1\nlinux64: personality(0x40000): Function not implemented\nrc=1\n",
                filtered.out(), filtered.describe());
        assertJruncRanAndLeftNothing();

        from("unconfined1", E2eHost.IMAGE, "--security-opt", "seccomp=unconfined");
        Command.Result unconfined = run("unconfined1", probe);
        assertEquals(0, unconfined.exitCode(), unconfined.describe());
        assertEquals("Seccomp:\t0\nSeccomp_filters:\t0\n00040000\nrc=0\n", unconfined.out(), unconfined.describe());
        assertJruncRanAndLeftNothing();
    }

    @Test
    void runExitsWithTheContainersStatus() {
        from("status1", E2eHost.IMAGE);
        Command.Result r = run("status1", "echo pid=$$; ulimit -n; id -u; exit 3");
        assertEquals(3, r.exitCode(), r.describe());
        assertEquals("pid=1\n20000\n0\n", r.out(), r.describe());
        assertJruncRanAndLeftNothing();
    }

    /**
     * `buildah bud` of a Containerfile whose RUN step writes a file (what /proc/self/status shows it, so
     * the step ran filtered); the built image, opened with `buildah from`, holds it.
     */
    @Test
    void budRunsTheRunStepAndTheImageHoldsItsFile() throws Exception {
        Path context = Files.createDirectories(work.resolve("context"));
        Files.writeString(context.resolve("Containerfile"), "FROM " + E2eHost.IMAGE + "\n"
                + "RUN echo built by jrunc > /built.txt && grep -E '^Seccomp' /proc/self/status >> /built.txt\n");
        List<String> bud = buildah("bud", "--signature-policy", policy.toString(), "--pull-never",
                "--cgroup-parent", cgroupParent, "--layers=false", "-t", BUILT);
        bud.addAll(runFlags);
        bud.add(context.toString());
        Command.Result built = cmd.run(bud);
        assertEquals(0, built.exitCode(), built.describe());
        assertTrue(built.out().contains("Successfully tagged " + BUILT), built.describe());
        assertJruncRanAndLeftNothing();

        from("built1", BUILT);
        Command.Result r = run("built1", "cat /built.txt");
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("built by jrunc\nSeccomp:\t2\nSeccomp_filters:\t1\n", r.out(), r.describe());
        assertJruncRanAndLeftNothing();
    }
}
