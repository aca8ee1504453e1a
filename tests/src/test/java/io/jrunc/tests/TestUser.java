package io.jrunc.tests;

import io.jrunc.testsupport.Requirements;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The unprivileged user the rootless tests run as, made by the tests themselves so that a fresh machine
 * needs nothing set up by hand: a login user ({@value #NAME}, with a home directory), one range of
 * subordinate ids in /etc/subuid and /etc/subgid for newuidmap/newgidmap (Debian's uidmap package), and
 * an XDG_RUNTIME_DIR (/run/user/UID, mode 0700, owned by the user) as a login session would have it.
 *
 * <p>{@link #ensure()} is idempotent: it adds only what is missing and refuses a user of that name whose
 * subordinate ranges differ from {@link #SUB_START}/{@link #SUB_COUNT} (another setup owns it).
 * Commands run as the user through setpriv (uid, gid and the user's supplementary groups; every
 * capability gone with the uid change, no_new_privs left off so newuidmap keeps its privileges) with
 * an environment made from nothing: HOME, USER, LOGNAME, PATH, XDG_RUNTIME_DIR, plus what the caller
 * adds. Their output goes to files, never pipes: podman's pause process and conmon outlive the command
 * and would keep a pipe open.
 *
 * <p>The range 200000-265535 keeps clear of what else this machine hands out: useradd's default
 * first range and Docker's {@code dockremap} both start at 100000, and tests map container ids to
 * 100000 as root.
 */
public final class TestUser {
    public static final String NAME = "jrunc-rootless";
    /** The first subordinate uid and gid of the user. */
    public static final long SUB_START = 200000;
    public static final long SUB_COUNT = 65536;
    public static final String PATH_ENV = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    public static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static final Path SUBUID = Path.of("/etc/subuid");
    private static final Path SUBGID = Path.of("/etc/subgid");
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final int uid;
    private final int gid;
    private final Path home;

    private TestUser(int uid, int gid, Path home) {
        this.uid = uid;
        this.gid = gid;
        this.home = home;
    }

    public int uid() {
        return uid;
    }

    public int gid() {
        return gid;
    }

    public Path home() {
        return home;
    }

    /** /run/user/UID, as pam_systemd would make it. */
    public Path runtimeDir() {
        return Path.of("/run/user", Integer.toString(uid));
    }

    /**
     * The user, created first when missing, with its subordinate ranges and runtime directory; needs
     * root, useradd/usermod (passwd) and newuidmap/newgidmap/setpriv (uidmap, util-linux): fails under
     * CI=true and skips elsewhere without them.
     */
    public static synchronized TestUser ensure() {
        Requirements.requireRoot("creating the unprivileged user " + NAME);
        Requirements.requireCommands("passwd, uidmap, util-linux", "useradd", "usermod", "newuidmap", "newgidmap",
                "setpriv");
        try {
            if (idOf("-u") < 0) {
                // No automatic subordinate ranges: this class adds its own, below.
                root(List.of("useradd", "--create-home", "--shell", "/bin/sh", "--user-group",
                        "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", NAME));
            }
            int uid = idOf("-u");
            int gid = idOf("-g");
            if (uid <= 0 || gid <= 0) {
                throw new AssertionError("user " + NAME + " has uid " + uid + ", gid " + gid);
            }
            String range = SUB_START + "-" + (SUB_START + SUB_COUNT - 1);
            boolean uids = hasRange(SUBUID);
            boolean gids = hasRange(SUBGID);
            if (!uids || !gids) {
                List<String> add = new ArrayList<>(List.of("usermod"));
                if (!uids) {
                    add.addAll(List.of("--add-subuids", range));
                }
                if (!gids) {
                    add.addAll(List.of("--add-subgids", range));
                }
                add.add(NAME);
                root(add);
            }
            Path home = Path.of(passwdField(5));
            TestUser user = new TestUser(uid, gid, home);
            Path run = user.runtimeDir();
            if (!Files.isDirectory(run)) {
                Files.createDirectories(run.getParent());
                Files.createDirectory(run);
            }
            root(List.of("chown", uid + ":" + gid, run.toString()));
            Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
            return user;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * True when {@code file} gives the user exactly the range {@link #SUB_START}/{@link #SUB_COUNT},
     * false when it gives the user none; an error when it gives the user another.
     */
    private static boolean hasRange(Path file) throws IOException {
        String mine = NAME + ":" + SUB_START + ":" + SUB_COUNT;
        List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
        List<String> users = lines.stream().filter(l -> l.startsWith(NAME + ":")).toList();
        if (users.isEmpty()) {
            return false;
        }
        if (!users.equals(List.of(mine))) {
            throw new AssertionError(file + " gives " + NAME + " " + users + ", not only " + mine
                    + ": remove those lines (another setup made the user)");
        }
        return true;
    }

    private static int idOf(String flag) {
        Result r = exec(List.of("id", flag, NAME), Map.of(), null, null);
        return r.exitCode() == 0 ? Integer.parseInt(r.stdout().strip()) : -1;
    }

    private static String passwdField(int index) {
        Result r = exec(List.of("getent", "passwd", NAME), Map.of(), null, null).ok();
        return r.stdout().strip().split(":")[index];
    }

    private static void root(List<String> command) {
        exec(command, Map.of(), null, null).ok();
    }

    /** The environment a command of the user starts with (before the caller's additions). */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("USER", NAME);
        env.put("LOGNAME", NAME);
        env.put("PATH", PATH_ENV);
        env.put("XDG_RUNTIME_DIR", runtimeDir().toString());
        return env;
    }

    /** Runs {@code command} as the user in its home directory, stdin /dev/null. */
    public Result run(String... command) {
        return run(Map.of(), null, List.of(command));
    }

    /**
     * Runs {@code command} as the user with {@code env} added to its environment, in its home directory,
     * with {@code stdin} (null: /dev/null) as its input, for up to {@link #TIMEOUT}.
     */
    public Result run(Map<String, String> env, String stdin, List<String> command) {
        List<String> full = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--init-groups",
                "--"));
        full.addAll(command);
        Map<String, String> all = environment();
        all.putAll(env);
        return exec(full, all, home, stdin);
    }

    /** Pids of the user's processes (real uid), as /proc shows them now. */
    public List<Long> processes() {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    for (String line : Files.readAllLines(p.resolve("status"))) {
                        if (line.startsWith("Uid:")) {
                            if (Integer.parseInt(line.split("\\s+")[1]) == uid) {
                                pids.add(Long.parseLong(p.getFileName().toString()));
                            }
                            break;
                        }
                    }
                } catch (IOException | UncheckedIOException e) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pids;
    }

    /**
     * Runs {@code command} with exactly {@code env} as its environment, in {@code dir} (null: this
     * process's), outputs to temporary files read back when it ends.
     */
    private static Result exec(List<String> command, Map<String, String> env, Path dir, String stdin) {
        Path out = null;
        Path err = null;
        Path in = null;
        try {
            int n = SEQ.incrementAndGet();
            out = Files.createTempFile("jrunc-testuser-" + n + "-", ".out");
            err = Files.createTempFile("jrunc-testuser-" + n + "-", ".err");
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (!env.isEmpty()) {
                pb.environment().clear();
                pb.environment().putAll(env);
            }
            if (dir != null) {
                pb.directory(dir.toFile());
            }
            if (stdin == null) {
                pb.redirectInput(new File("/dev/null"));
            } else {
                in = Files.createTempFile("jrunc-testuser-" + n + "-", ".in");
                Files.writeString(in, stdin);
                pb.redirectInput(in.toFile());
            }
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                throw new AssertionError("timed out after " + TIMEOUT + ": " + String.join(" ", command)
                        + "\n--- stdout ---\n" + Files.readString(out) + "\n--- stderr ---\n" + Files.readString(err));
            }
            return new Result(List.copyOf(command), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + command, e);
        } finally {
            for (Path f : new Path[] {out, err, in}) {
                if (f != null) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException ignored) {
                        // a temporary file: the next boot's tmp cleaning takes it
                    }
                }
            }
        }
    }
}
