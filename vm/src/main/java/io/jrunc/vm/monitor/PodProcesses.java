package io.jrunc.vm.monitor;

import io.jrunc.vm.VmException;
import io.jrunc.vm.qemu.Liveness;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.qemu.Virtiofsd;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A pod's processes on the host, found without asking them anything: its monitor (`jrunc-vm --root
 * ROOT monitor POD`, whatever it is doing) and its qemu (the pid and start time pod.json records, or
 * any process whose command line names the pod's QMP socket: a qemu launched by a monitor that was
 * killed before it recorded it). {@link #end} ends them all with SIGKILL and removes what the monitor
 * would have removed after them, with the virtiofsd processes of its shared directories.
 *
 * <p>This is how a pod is powered off at once (`pod rm -f`, `pod stop -t 0`, the undoing of a boot
 * a failed call started): nothing in a pod's VM needs an orderly end when no grace is given (images
 * are read-only, the swap area is scratch, a writable root's upper layer is a tmpfs), and a monitor
 * still booting, or one a killed call left, answers no one until the boot ends.
 */
public final class PodProcesses {
    private static final Duration RESCAN = Duration.ofMillis(50);
    private static final Duration POLL = Duration.ofMillis(10);

    private PodProcesses() {
    }

    /**
     * SIGKILLs the pod's monitor, then its qemu, and waits for them; scans again until two scans
     * {@link #RESCAN} apart find none (a monitor killed while it spawned qemu can leave one that
     * appears just after). Then the
     * sockets and the swap area the monitor would have removed are removed. True when a process was
     * ended. pod.json is read at every scan: a monitor may have recorded its qemu just before it died.
     */
    public static boolean end(StateRoot root, String pod, Duration wait) throws VmException {
        long deadline = System.nanoTime() + wait.toNanos();
        boolean ended = false;
        int quietScans = 0;
        while (quietScans < 2) {
            List<ProcessHandle> found = find(root, pod, root.pod(pod).map(PodRecord::vm).orElse(PodRecord.Vm.NONE));
            if (found.isEmpty()) {
                quietScans++;
            } else {
                quietScans = 0;
                ended = true;
                found.forEach(ProcessHandle::destroyForcibly);
                for (ProcessHandle h : found) {
                    while (Liveness.live(h)) {
                        if (System.nanoTime() > deadline) {
                            throw new VmException("pod " + pod + ": process " + h.pid() + " did not end after SIGKILL");
                        }
                        sleep(POLL);
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new VmException("pod " + pod + ": its processes did not end within " + wait.toSeconds() + " s");
            }
            if (quietScans < 2) {
                sleep(RESCAN); // not after the last scan: nothing follows it to wait for
            }
        }
        Path dir = root.podDir(pod);
        try {
            for (String leftover : List.of("monitor.sock", "qmp.sock", "agent.sock")) {
                Files.deleteIfExists(dir.resolve(leftover));
            }
            Files.deleteIfExists(SwapDisk.file(dir));
            // each exits when qemu does; one whose hot-plug never came would wait for ever
            Virtiofsd.stopAll(dir);
        } catch (IOException e) {
            throw new VmException("pod " + pod + ": cannot remove what its VM left: " + e.getMessage(), e);
        }
        return ended;
    }

    /** The monitors first (so that none launches another qemu), then every qemu. Never this JVM. */
    static List<ProcessHandle> find(StateRoot root, String pod, PodRecord.Vm recorded) throws VmException {
        String qmpSocket = root.podDir(pod).resolve("qmp.sock") + ",";
        String[] monitorTail = {"--root", root.path().toString(), "monitor", pod};
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> monitors = new ArrayList<>();
        List<ProcessHandle> qemus = new ArrayList<>();
        PodMonitor.runningQemu(recorded).filter(h -> h.pid() != self).ifPresent(qemus::add);
        ProcessHandle.allProcesses().filter(h -> h.pid() != self && Liveness.live(h)).forEach(h -> {
            String[] args = h.info().arguments().orElse(null);
            if (args == null) {
                return;
            }
            if (args.length >= monitorTail.length
                    && Arrays.equals(Arrays.copyOfRange(args, args.length - monitorTail.length, args.length), monitorTail)) {
                monitors.add(h);
            } else if (Arrays.stream(args).anyMatch(a -> a.contains(qmpSocket)) && qemus.stream().noneMatch(q -> q.pid() == h.pid())) {
                qemus.add(h);
            }
        });
        monitors.addAll(qemus);
        return monitors;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
