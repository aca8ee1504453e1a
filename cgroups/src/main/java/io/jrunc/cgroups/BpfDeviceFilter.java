package io.jrunc.cgroups;

import io.jrunc.bindings.Bpf;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.spec.LinuxDeviceCgroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * cgroup v2 device control as runc does it (opencontainers/cgroups {@code devices/v2.go},
 * {@code ebpf_linux.go}): the rules become a {@link DeviceFilterProgram}, which is loaded and attached
 * to the cgroup directory with BPF_F_ALLOW_MULTI, replacing the device programs attached there before
 * without a moment in which none is attached:
 * <ol>
 * <li>query the programs attached to the directory (BPF_PROG_QUERY) and open each by id, skipping
 *     those the caller may not open (EPERM/EACCES: an LSM label; another program can only restrict
 *     further, so leaving it is safe);</li>
 * <li>load the new program;</li>
 * <li>exactly one old program: attach the new one with BPF_F_REPLACE naming it (atomic, kernel 5.6+;
 *     on EINVAL, an older kernel, continue as below);</li>
 * <li>otherwise attach the new one next to the old ones, then detach every old one. While both are
 *     attached the kernel allows an access only if every program allows it, so the window is
 *     stricter than either rule set, never looser.</li>
 * </ol>
 * A failure of bpf(2) is ignored, as runc ignores it, when this process is in a user namespace
 * (bpf(2) is not available there) or when every rule allows rwm (nothing would be denied); otherwise it
 * is an error naming the cgroup and the step.
 */
public final class BpfDeviceFilter implements CgroupV2DeviceFilter {

    /** The filter {@link Cgroup#apply(io.jrunc.spec.LinuxResources)} uses on cgroup v2. */
    public static final BpfDeviceFilter INSTANCE = new BpfDeviceFilter();

    private BpfDeviceFilter() {
    }

    @Override
    public void install(Path cgroupDirectory, List<LinuxDeviceCgroup> rules) throws CgroupException {
        DeviceFilterProgram program = DeviceFilterProgram.of(rules); // invalid rules fail whatever the kernel
        try {
            attach(cgroupDirectory, program);
        } catch (CgroupException e) {
            if (!canSkipBpfError(rules)) {
                throw e;
            }
        }
    }

    /** Loads {@code program} and makes it the only device program of {@code cgroupDirectory}. */
    static void attach(Path cgroupDirectory, DeviceFilterProgram program) throws CgroupException {
        int dir;
        try {
            dir = FileDescriptors.open(cgroupDirectory.toString(),
                    FileDescriptors.O_DIRECTORY | FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw new CgroupException("cannot open cgroup " + cgroupDirectory + " for the device filter: "
                    + Errno.describe(e.errno()), e.errno(), e);
        }
        List<Integer> old = new ArrayList<>();
        int prog = -1;
        try {
            old.addAll(attachedPrograms(cgroupDirectory, dir));
            try {
                prog = Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, program.bytes(), DeviceFilterProgram.LICENSE,
                        DeviceFilterProgram.NAME);
            } catch (Bpf.LoadException e) {
                throw new CgroupException("cannot load the device filter for " + cgroupDirectory + ": "
                        + e.getMessage(), e.errno(), e);
            } catch (ErrnoException e) {
                throw failed(cgroupDirectory, "BPF_PROG_LOAD", e);
            }
            if (old.size() == 1 && replaced(cgroupDirectory, dir, prog, old.getFirst())) {
                return;
            }
            try {
                Bpf.progAttach(dir, prog, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI, 0);
            } catch (ErrnoException e) {
                throw failed(cgroupDirectory, "BPF_PROG_ATTACH", e);
            }
            for (int oldProg : old) {
                try {
                    Bpf.progDetach(dir, oldProg, Bpf.BPF_CGROUP_DEVICE);
                } catch (ErrnoException e) {
                    throw failed(cgroupDirectory, "BPF_PROG_DETACH of the previous device filter", e);
                }
            }
        } finally {
            // once attached, the cgroup holds the program; our descriptors are no longer needed
            FileDescriptors.closeQuietly(prog);
            old.forEach(FileDescriptors::closeQuietly);
            FileDescriptors.closeQuietly(dir);
        }
    }

    /** Atomic replacement; false if this kernel has no BPF_F_REPLACE (EINVAL). */
    private static boolean replaced(Path cgroupDirectory, int dir, int prog, int old) throws CgroupException {
        try {
            Bpf.progAttach(dir, prog, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI | Bpf.BPF_F_REPLACE, old);
            return true;
        } catch (ErrnoException e) {
            if (e.is(Errno.EINVAL)) {
                return false;
            }
            throw failed(cgroupDirectory, "BPF_PROG_ATTACH (BPF_F_REPLACE)", e);
        }
    }

    /** Descriptors of the device programs attached to the directory itself. */
    static List<Integer> attachedPrograms(Path cgroupDirectory, int dir) throws CgroupException {
        Bpf.Attached attached;
        try {
            attached = Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE);
        } catch (ErrnoException e) {
            throw failed(cgroupDirectory, "BPF_PROG_QUERY", e);
        }
        List<Integer> fds = new ArrayList<>();
        try {
            for (int id : attached.programIds()) {
                try {
                    fds.add(Bpf.progGetFdById(id));
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EPERM) && !e.is(Errno.EACCES)) {
                        throw failed(cgroupDirectory, "BPF_PROG_GET_FD_BY_ID " + Integer.toUnsignedString(id), e);
                    }
                }
            }
            return fds;
        } catch (CgroupException | RuntimeException e) {
            fds.forEach(FileDescriptors::closeQuietly);
            throw e;
        }
    }

    private static CgroupException failed(Path cgroupDirectory, String step, ErrnoException e) {
        return new CgroupException("device filter for " + cgroupDirectory + ": " + step + " failed: "
                + Errno.describe(e.errno()) + " (" + e.errnoName() + ")", e.errno(), e);
    }

    /**
     * runc's {@code canSkipEBPFError}: in a user namespace bpf(2) is refused anyway (and a rootless
     * container cannot reach host devices); and rules that all allow rwm deny nothing.
     */
    static boolean canSkipBpfError(List<LinuxDeviceCgroup> rules) {
        if (inUserNamespace()) {
            return true;
        }
        for (LinuxDeviceCgroup rule : rules) {
            String access = rule.access() == null || rule.access().isEmpty() ? "rwm" : rule.access();
            if (!Boolean.TRUE.equals(rule.allow())
                    || !(access.contains("r") && access.contains("w") && access.contains("m"))) {
                return false;
            }
        }
        return true;
    }

    /** The initial user namespace maps every id onto itself: {@code 0 0 4294967295}. */
    static boolean inUserNamespace() {
        try {
            String map = Files.readString(Path.of("/proc/self/uid_map")).trim();
            return !map.matches("0\\s+0\\s+4294967295");
        } catch (IOException e) {
            return false;
        }
    }
}
