package io.jrunc.tests;

import io.jrunc.bindings.FileTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * One test's world: a temp directory holding its bundles, a private jrunc {@code --root}, and the
 * container ids it handed out. {@link #close} force-deletes whatever the test left and then fails
 * the test if anything of its containers survived: a state directory, a cgroup named after an id in
 * any hierarchy, a mount mentioning the test's directory, or a process.
 */
public final class Sandbox implements AutoCloseable {
    static final Path BASE = Path.of(System.getProperty("java.io.tmpdir"), "jrunc-it");
    static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    private final Path dir;
    private final Jrunc jrunc;
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final Set<Long> pids = ConcurrentHashMap.newKeySet();
    private final List<Jrunc.Background> background = new ArrayList<>();
    private int bundles;

    Sandbox(String name) {
        try {
            Files.createDirectories(BASE);
            dir = Files.createTempDirectory(BASE, name.replaceAll("[^A-Za-z0-9]", "") + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        jrunc = new Jrunc(Jrunc.defaultBinary(), dir.resolve("root"), dir.resolve("calls"));
    }

    public Path dir() {
        return dir;
    }

    public Jrunc jrunc() {
        return jrunc;
    }

    /** runc with its own root, to compare behaviour on the same bundle. */
    public Jrunc runc() {
        return new Jrunc(Path.of("/usr/sbin/runc"), dir.resolve("runc-root"), dir.resolve("calls-runc"));
    }

    /** A fresh container id, unique on the machine so the cgroup and process checks can find it. */
    public String id(String hint) {
        String id = "jt-" + hint + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
        ids.add(id);
        return id;
    }

    public synchronized Bundle bundle() {
        return new Bundle(dir.resolve("bundle" + (++bundles)));
    }

    /** A container pid the test saw; it must be gone at the end. */
    public void sawPid(long pid) {
        if (pid > 0) {
            pids.add(pid);
        }
    }

    public synchronized Jrunc.Background background(Jrunc.Background b) {
        background.add(b);
        return b;
    }

    public Path file(String name) {
        return dir.resolve(name);
    }

    @Override
    public void close() {
        synchronized (this) {
            for (Jrunc.Background b : background) {
                b.process().destroyForcibly();
            }
        }
        List<String> problems = new ArrayList<>();
        try (Stream<Path> entries = Files.isDirectory(jrunc.root()) ? Files.list(jrunc.root()) : Stream.empty()) {
            for (Path p : entries.toList()) {
                String name = p.getFileName().toString();
                if (name.equals("@cache")) {
                    continue; // compiled seccomp programs (SeccompCache), kept by design: no container's
                }
                ids.add(name);
                Result r = jrunc.run("delete", "--force", name);
                if (r.exitCode() != 0) {
                    problems.add("delete --force " + name + " failed: " + r.stderr().strip());
                }
            }
        } catch (IOException e) {
            problems.add("listing " + jrunc.root() + ": " + e);
        }
        problems.addAll(leftovers());
        boolean mounted = problems.stream().anyMatch(s -> s.startsWith("mount"));
        if (!mounted) {
            deleteTree(dir);
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("left behind:\n  " + String.join("\n  ", problems));
        }
    }

    /** Everything of this sandbox's containers still on the machine, one line each. */
    public List<String> leftovers() {
        List<String> problems = new ArrayList<>();
        for (String id : ids) {
            if (Files.exists(jrunc.root().resolve(id))) {
                problems.add("state directory " + jrunc.root().resolve(id));
            }
        }
        try (Stream<Path> walk = Files.walk(CGROUP_ROOT)) {
            walk.filter(p -> p.getFileName() != null && ids.contains(p.getFileName().toString())
                    && Files.isDirectory(p)).forEach(p -> problems.add("cgroup " + p));
        } catch (IOException | UncheckedIOException e) {
            problems.add("walking " + CGROUP_ROOT + ": " + e);
        }
        for (String line : Host.mountinfo()) {
            if (line.contains(dir.toString())) {
                problems.add("mount " + line);
            }
        }
        for (long pid : Host.pids()) {
            String cgroup = Host.read(Path.of("/proc", Long.toString(pid), "cgroup"));
            if (cgroup == null || Host.isZombieOrGone(pid)) {
                continue;
            }
            for (String id : ids) {
                if (cgroup.contains("/" + id + "\n") || cgroup.contains("/" + id + "/")) {
                    problems.add("process " + pid + " (" + Host.comm(pid) + ") in cgroup of " + id);
                }
            }
        }
        for (long pid : pids) {
            if (!Host.isZombieOrGone(pid)) {
                problems.add("process " + pid + " (" + Host.comm(pid) + ") still alive");
            }
        }
        return problems;
    }

    static void deleteTree(Path root) {
        try {
            FileTrees.delete(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
