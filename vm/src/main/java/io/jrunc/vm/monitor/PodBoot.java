package io.jrunc.vm.monitor;

import io.jrunc.vm.VmException;
import io.jrunc.vm.network.NamespaceLink;
import io.jrunc.vm.network.PodNetworks;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A boot's network, around qemu's launch: published host ports checked free again (a pod created long
 * ago may find one taken), qemu's network arguments, and for `--network ns:PATH` the tap joined in
 * that namespace with qemu started there ({@link NamespaceLink}), the addresses the guest takes
 * written to the pod's record. Whatever fails leaves no tap and no qdisc.
 */
public final class PodBoot {
    private PodBoot() {
    }

    static QemuVm launch(StateRoot root, PodRecord pod, List<String> command, Path dir) throws IOException, VmException {
        try {
            return launchWithNetwork(root, pod, command, dir);
        } catch (IOException | VmException | RuntimeException e) {
            QemuVm.removeBootFiles(dir); // the swap area made for this boot, too
            throw e;
        }
    }

    private static QemuVm launchWithNetwork(StateRoot root, PodRecord pod, List<String> command, Path dir)
            throws IOException, VmException {
        PodRecord.Network network = pod.config().network();
        Path log = dir.resolve("monitor.log");
        if (network.mode().startsWith(PodNetworks.NS_PREFIX)) {
            String path = network.mode().substring(PodNetworks.NS_PREFIX.length());
            String tap = NamespaceLink.tapName(pod.name());
            try {
                return NamespaceLink.attach(path, tap, attached -> () -> {
                    PodRecord.Network found = network.withInterface(attached.mac(), attached.addresses(), attached.gateway(),
                            attached.mtu());
                    root.write(pod.withConfig(pod.config().withNetwork(found)));
                    return start(withNetwork(command, found, tap), log);
                });
            } catch (IOException | VmException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new VmException(e.getMessage(), e);
            }
        }
        PodNetworks.requirePortsFree(network);
        return start(withNetwork(command, network, null), log);
    }

    private static List<String> withNetwork(List<String> command, PodRecord.Network network, String tap) throws VmException {
        List<String> all = new ArrayList<>(command);
        all.addAll(PodNetworks.qemuArgs(network, tap));
        return all;
    }

    /** Launches qemu; when it fails, what qemu itself said (its own lines in monitor.log) is in the error. */
    private static QemuVm start(List<String> command, Path log) throws IOException {
        System.err.println("monitor " + ProcessHandle.current().pid() + ": " + String.join(" ", command));
        long before = Files.exists(log) ? Files.size(log) : 0;
        try {
            return QemuVm.launch(command, log.getParent(), log);
        } catch (IOException e) {
            String said = qemuSaid(log, before);
            throw said == null ? e : new IOException(said, e);
        }
    }

    private static String qemuSaid(Path log, long from) {
        try {
            byte[] all = Files.readAllBytes(log);
            String added = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from), StandardCharsets.UTF_8);
            return added.lines().filter(l -> l.startsWith("qemu-system")).reduce((a, b) -> b)
                    .map(l -> l.contains("host forwarding rule") ? l + " (a published host port is taken)" : l).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** After the VM: the tap and qdisc a `--network ns:` boot made are removed (nothing for the other modes). */
    public static void detachNetwork(PodRecord pod) {
        String mode = pod.config().network().mode();
        if (mode.startsWith(PodNetworks.NS_PREFIX)) {
            NamespaceLink.detach(mode.substring(PodNetworks.NS_PREFIX.length()), NamespaceLink.tapName(pod.name()));
        }
    }
}
