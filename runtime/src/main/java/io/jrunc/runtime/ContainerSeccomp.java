package io.jrunc.runtime;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.runtime.init.FilterCompilation;
import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.SeccompCompiler;
import io.jrunc.seccomp.SeccompException;
import io.jrunc.spec.ContainerProcessState;
import io.jrunc.spec.Json;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.Spec;
import io.jrunc.spec.State;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A container's {@code linux.seccomp}: compiled once at the edge of create and exec (an invalid profile
 * fails before anything is made), and the listener handed to {@code listenerPath} for SCMP_ACT_NOTIFY.
 * Loading is the child's (init.ChainSpawn; docs/seccomp.md says why).
 */
final class ContainerSeccomp {
    private ContainerSeccomp() {}

    /**
     * The compile started on a thread of its own (init.FilterCompilation says why), or null when the
     * config has no linux.seccomp. {@code root}: the state root, whose cache of compiled programs is
     * used ({@link SeccompCache}); null for none.
     */
    static FilterCompilation startCompile(Spec spec, Path root) {
        LinuxSeccomp seccomp = spec.linux() == null ? null : spec.linux().seccomp();
        if (seccomp == null) {
            return null;
        }
        boolean notify = false;
        if (seccomp.syscalls() != null) {
            for (io.jrunc.spec.LinuxSyscall rule : seccomp.syscalls()) {
                notify |= "SCMP_ACT_NOTIFY".equals(rule.action());
            }
        }
        return FilterCompilation.start(() -> compileKeepingLater(spec, root), notify);
    }

    /**
     * The compiled filter (from the cache in {@code root} when it has it), or null when the config has
     * none; a newly compiled program is kept in the cache only when the caller runs the result's
     * {@code afterPublished} (the compile thread runs it once the filter is handed over).
     */
    private static FilterCompilation.Result compileKeepingLater(Spec spec, Path root) {
        LinuxSeccomp seccomp = spec.linux() == null ? null : spec.linux().seccomp();
        if (seccomp == null) {
            return null;
        }
        try {
            SeccompCache cache = root == null ? null : new SeccompCache(root);
            byte[] key = cache == null ? null : SeccompCache.key(seccomp, Arch.nativeArch());
            CompiledFilter filter = cache == null ? null : cache.load(key);
            Runnable keep = null;
            if (filter == null) {
                CompiledFilter compiled = SeccompCompiler.compile(seccomp, Arch.nativeArch());
                if (cache != null) {
                    keep = () -> cache.store(key, compiled);
                }
                filter = compiled;
            }
            if (Log.isDebug()) {
                for (String name : filter.unknownNames()) {
                    Log.debug("unknown seccomp syscall \"" + name + "\" ignored"); // runc's words
                }
            }
            if ((filter.flags() & CompiledFilter.FLAG_WAIT_KILLABLE_RECV) != 0 && !killableRecvSupported()) {
                throw new SeccompException("linux.seccomp.flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs"
                        + " Linux 5.19 or later");
            }
            if ((filter.flags() & CompiledFilter.FLAG_WAIT_KILLABLE_RECV) != 0 && !filter.usesNotify()) {
                // the kernel refuses the flag without a listener (kernel/seccomp.c): the chain would not see it
                throw new SeccompException("linux.seccomp.flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs an"
                        + " SCMP_ACT_NOTIFY rule");
            }
            return new FilterCompilation.Result(filter, keep);
        } catch (SeccompException e) {
            throw new ContainerException(e.getMessage(), e);
        }
    }

    /**
     * Sends the child's listener to {@code listenerPath}: one sendmsg on a new connection, the container
     * process state as JSON with the descriptor as SCM_RIGHTS (config-linux.md, Seccomp; runc does the
     * same). The child holds it at {@code childFd}, close-on-exec; it is fetched with pidfd_getfd.
     */
    static void sendListener(LinuxSeccomp seccomp, int pid, int childFd, State state) {
        Path link = Path.of("/proc", Integer.toString(pid), "fd", Integer.toString(childFd));
        try {
            String target = Files.readSymbolicLink(link).toString();
            if (!target.equals("anon_inode:seccomp notify")) {
                throw new IllegalStateException("seccomp listener: descriptor " + childFd + " of the container"
                        + " process is " + target);
            }
        } catch (IOException e) {
            throw new IllegalStateException("seccomp listener: the container process has no descriptor " + childFd, e);
        }
        int pidfd = Processes.pidfdOpen(pid);
        int listener = -1;
        int socket = -1;
        try {
            listener = Processes.pidfdGetfd(pidfd, childFd);
            ContainerProcessState message = new ContainerProcessState(state.ociVersion(),
                    List.of(ContainerProcessState.SECCOMP_FD_NAME), pid, seccomp.listenerMetadata(), state);
            socket = UnixSockets.connect(seccomp.listenerPath());
            UnixSockets.sendWithFd(socket, Json.write(message).getBytes(StandardCharsets.UTF_8), listener);
        } finally {
            FileDescriptors.closeQuietly(socket);
            FileDescriptors.closeQuietly(listener);
            FileDescriptors.closeQuietly(pidfd);
        }
    }

    /** SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV came with Linux 5.19. */
    static boolean killableRecvSupported() {
        return kernelAtLeast(5, 19);
    }

    private static boolean kernelAtLeast(int major, int minor) {
        // os.version is the kernel's release (uname(2)), e.g. 6.18.44-amd64.
        try {
            String[] v = System.getProperty("os.version").split("[.-]");
            int a = Integer.parseInt(v[0]);
            int b = Integer.parseInt(v[1]);
            return a > major || a == major && b >= minor;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
