package io.jrunc.vm.network;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.Rtnetlink;
import io.jrunc.bindings.StatFs;
import io.jrunc.bindings.Tap;
import io.jrunc.vm.VmException;
import java.net.Inet4Address;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * `--network ns:PATH`: the pod joins a network namespace someone else made (a CNI plugin, `ip netns
 * add`), as kata's tcfilter mode does. Inside that namespace a tap is made and joined to the
 * namespace's one interface (other than lo) by an ingress qdisc on each and a u32 filter redirecting
 * every frame to the other (mirred): what arrives on the interface leaves through the tap to the
 * guest, and what the guest sends leaves through the interface. The guest's virtio-net takes the
 * interface's hardware address, addresses, default route and MTU, so the far end sees the same
 * machine it was configured for. qemu is started in the namespace (by a platform thread that
 * setns(2)ed there, whose children inherit it) and opens the tap by name.
 *
 * <p>Every step runs on a platform thread of its own that ends after it: namespaces are per thread,
 * and no other thread of the JVM must ever be in the pod's namespace.
 */
public final class NamespaceLink {
    /** statfs f_type of a namespace file (include/uapi/linux/magic.h NSFS_MAGIC). */
    static final long NSFS_MAGIC = 0x6e736673L;

    /** What the guest takes from the namespace's interface, and the tap joined to it. */
    public record Attached(String tap, String mac, List<String> addresses, String gateway, int mtu) {
    }

    private NamespaceLink() {
    }

    /** Fails unless {@code path} is a network namespace file (nsfs, and setns accepts it as CLONE_NEWNET). */
    public static void requireNamespace(String path) throws VmException {
        String bad = "invalid --network ns:" + path + ": ";
        if (!path.startsWith("/")) {
            throw new VmException(bad + "expected an absolute path such as /run/netns/NAME");
        }
        try {
            if (StatFs.of(path).type() != NSFS_MAGIC) {
                throw new VmException(bad + "not a namespace file (such as /run/netns/NAME or /proc/PID/ns/net)");
            }
            inNamespace(path, () -> null);
        } catch (ErrnoException e) {
            throw new VmException(bad + e.getMessage());
        }
    }

    /** The tap's name for a pod: stable, at most 15 characters, and distinct per pod. */
    public static String tapName(String pod) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(pod.getBytes(StandardCharsets.UTF_8));
            return "jrtap" + HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Makes the tap and the redirects in the namespace and reads what the guest takes, then runs
     * {@code start} (qemu's launch) on the same thread, in the namespace. Whatever fails undoes the tap
     * and the qdisc.
     */
    public static <T> T attach(String path, String tap, java.util.function.Function<Attached, Callable<T>> start)
            throws Exception {
        return inNamespace(path, () -> {
            Attached attached;
            try (Rtnetlink rt = Rtnetlink.open()) {
                List<Rtnetlink.Link> candidates = rt.links().stream().filter(l -> !l.loopback() && !l.name().equals(tap)).toList();
                if (candidates.size() != 1) {
                    throw new VmException("network namespace " + path + " must have exactly one interface besides lo; it has "
                            + candidates.stream().map(Rtnetlink.Link::name).toList());
                }
                Rtnetlink.Link link = candidates.getFirst();
                List<String> addresses = rt.addresses().stream()
                        .filter(a -> a.index() == link.index() && a.address() instanceof Inet4Address).map(Object::toString).toList();
                String gateway = rt.routes().stream().filter(r -> r.isDefault() && r.gateway() instanceof Inet4Address)
                        .map(r -> r.gateway().getHostAddress()).findFirst().orElse("");
                try {
                    Tap.createPersistent(tap);
                    int tapIndex = rt.link(tap).index();
                    rt.setMtu(tapIndex, link.mtu());
                    rt.setUp(tapIndex, true);
                    if (!link.up()) {
                        rt.setUp(link.index(), true);
                    }
                    rt.addIngressQdisc(link.index());
                    rt.addIngressQdisc(tapIndex);
                    rt.redirectIngress(link.index(), tapIndex);
                    rt.redirectIngress(tapIndex, link.index());
                } catch (RuntimeException e) {
                    undo(rt, tap, link.index());
                    throw new VmException("network namespace " + path + ": joining a tap to " + link.name() + " failed: "
                            + e.getMessage(), e);
                }
                attached = new Attached(tap, link.mac(), addresses, gateway, link.mtu());
            }
            try {
                return start.apply(attached).call();
            } catch (Exception | Error e) {
                detachHere(tap);
                throw e;
            }
        });
    }

    /** Removes the tap and the interface's ingress qdisc (with its filter), if they are there. */
    public static void detach(String path, String tap) {
        try {
            inNamespace(path, () -> {
                detachHere(tap);
                return null;
            });
        } catch (Exception e) {
            // the namespace is gone (and the tap with it), or was never entered: nothing of ours is left
        }
    }

    private static void detachHere(String tap) {
        try (Rtnetlink rt = Rtnetlink.open()) {
            for (Rtnetlink.Link l : rt.links()) {
                if (!l.loopback() && !l.name().equals(tap)) {
                    undo(rt, tap, l.index());
                }
            }
            rt.links().stream().filter(l -> l.name().equals(tap)).findFirst().ifPresent(l -> rt.deleteLink(l.index()));
        }
    }

    private static void undo(Rtnetlink rt, String tap, int link) {
        try {
            rt.deleteIngressQdisc(link);
        } catch (ErrnoException ignored) {
            // none was made
        }
        try {
            rt.deleteLink(rt.link(tap).index());
        } catch (ErrnoException ignored) {
            // none was made
        }
    }

    /** Runs {@code body} on a new platform thread that first joins the network namespace at {@code path}. */
    static <T> T inNamespace(String path, Callable<T> body) throws VmException {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name("netns").start(() -> {
            try {
                int fd = FileDescriptors.open(path, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
                try {
                    Namespaces.setns(fd, Namespaces.CLONE_NEWNET, path);
                } finally {
                    FileDescriptors.closeQuietly(fd);
                }
                result.set(body.call());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VmException("interrupted in network namespace " + path);
        }
        Throwable f = failure.get();
        if (f instanceof VmException v) {
            throw v;
        } else if (f instanceof ErrnoException e) {
            throw e;
        } else if (f instanceof RuntimeException r) {
            throw r;
        } else if (f instanceof Error err) {
            throw err;
        } else if (f != null) {
            throw new VmException(f.getMessage(), f);
        }
        return result.get();
    }
}
