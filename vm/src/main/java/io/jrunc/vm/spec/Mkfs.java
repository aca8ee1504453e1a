package io.jrunc.vm.spec;

import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * e2fsprogs' mkfs.ext4 on a file (no mount, no loop device, no root needed), ended with the CLI
 * that started it: the one way the host
 * makes a filesystem for the guest, a container's image, its writable layer or a pod's volume. A
 * failure removes the file and says mkfs's last line.
 */
public final class Mkfs {
    private Mkfs() {
    }

    /**
     * mkfs.ext4 -q -F OPTIONS FILE SIZE: {@code file} is made (or replaced) at {@code bytes}, rounded
     * up to 4 KiB.
     *
     * @param what what the file is, for the error ("the image of /b/rootfs")
     */
    public static void ext4(Path file, long bytes, List<String> options, String what) throws VmException {
        long size = (bytes + 4095) / 4096 * 4096;
        // setpriv (util-linux) gives mkfs a parent-death signal: a CLI killed part-way (SIGKILL) takes
        // its mkfs with it, which would otherwise go on writing the file into a container directory
        // that `rm -f` is removing, and leave it there.
        List<String> command = new ArrayList<>(List.of("setpriv", "--pdeathsig", "KILL", "--", "mkfs.ext4", "-q", "-F"));
        command.addAll(options);
        command.add(file.toString());
        command.add((size / 1024) + "k");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                Files.deleteIfExists(file);
                throw new VmException("mkfs.ext4 for " + what + " failed: " + out.lines().reduce((a, b) -> b).orElse("exit " + p.exitValue()));
            }
        } catch (IOException e) {
            deleteQuietly(file);
            throw new VmException("cannot run mkfs.ext4 (e2fsprogs) for " + what + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            deleteQuietly(file);
            throw new VmException("interrupted making " + what);
        }
    }

    /**
     * An empty ext4 for the guest to write (a writable layer, a pod's volume) in a new sparse file: no
     * reserved blocks ({@code -m 0}: root would otherwise get 5% more than the size given, and other
     * users 5% less); a journal, so that a VM ended at once (`pod stop -t 0`, a killed qemu) leaves a
     * filesystem the next mount recovers; {@code lazy_journal_init} and {@code lazy_itable_init}, so
     * mkfs writes no zeros into the sparse file (it reads as zeros already): about 0.7 MiB allocated
     * for 1 GiB, in a few milliseconds here.
     */
    public static void writable(Path file, long bytes, String what) throws VmException {
        ext4(file, bytes, List.of("-m", "0", "-E", "root_owner=0:0,lazy_itable_init=1,lazy_journal_init=1"), what);
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort on a path that is already failing
        }
    }
}
