package io.jrunc.vminit;

import io.jrunc.agent.api.Volumes;
import io.jrunc.agent.api.pb.v1.AddVolumeRequest;
import io.jrunc.agent.api.pb.v1.AddVolumeResponse;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The pod's volumes (Pod.AddVolume): each an ext4 disk the host formatted and attached at boot,
 * mounted read-write at {@link Volumes#guestPath} for the whole life of the VM. Containers get one
 * through a bind mount in their spec (the host puts it there), so two containers of the pod share
 * its files; the kernel's page cache makes each one's writes visible to the other at once. PowerOff
 * unmounts them with everything else under /run.
 */
final class PodVolumes {
    /** name -> serial of the volumes mounted so far. */
    private final Map<String, String> mounted = new HashMap<>();

    synchronized AddVolumeResponse add(AddVolumeRequest r) throws RpcException, InterruptedException {
        String name = r.getName();
        if (!Volumes.validName(name)) {
            throw new RpcException(Code.INVALID_ARGUMENT, "name: \"" + name + "\" is not a volume name");
        }
        if (r.getSerial().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "serial: must be set");
        }
        String path = Volumes.guestPath(name);
        String serial = mounted.get(name);
        if (serial != null) {
            if (!serial.equals(r.getSerial())) {
                throw new RpcException(Code.ALREADY_EXISTS, "volume " + name + " is already the disk " + serial);
            }
            return AddVolumeResponse.newBuilder().setPath(path).build();
        }
        long t0 = System.nanoTime();
        try {
            Path device = RootDisks.find(r.getSerial(), 10_000);
            if (device == null) {
                throw new RpcException(Code.NOT_FOUND, "no disk with serial " + r.getSerial());
            }
            Files.createDirectories(Path.of(path));
            Mounts.mount(device.toString(), path, "ext4", Mounts.MS_NOSUID | Mounts.MS_NODEV, null);
            mounted.put(name, r.getSerial());
            Console.log("volume %s: %s mounted at %s in %.0f ms", name, device, path, (System.nanoTime() - t0) / 1e6);
            return AddVolumeResponse.newBuilder().setPath(path).build();
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, "volume " + name + ": " + e.getMessage());
        } catch (ErrnoException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "volume " + name + ": mounting " + r.getSerial() + ": " + e.getMessage());
        }
    }
}
