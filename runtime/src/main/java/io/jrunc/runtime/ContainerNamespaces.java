package io.jrunc.runtime;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.FsContext;
import io.jrunc.runtime.init.InitNamespaces;
import java.util.concurrent.Callable;

/**
 * Runs code on a throwaway platform thread that has joined a container's namespaces (every one of
 * ipc, uts, net, pid, mnt and cgroup that differs from the runtime's) but whose root directory is the
 * host's again. This is the context runc gives createContainer and startContainer hooks (it runs them
 * in the container's namespaces before pivot_root): processes spawned here are in the container's
 * namespaces, while the hook's path and interpreter resolve on the host, as the runtime-spec says.
 * The host root is reached through a descriptor opened before joining the mount namespace.
 */
final class ContainerNamespaces {
    private ContainerNamespaces() {}

    static <T> T call(int pid, Callable<T> body) throws Exception {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("jrunc-hooks").unstarted(() -> {
            int hostRoot = -1;
            try {
                FsContext.unshare();
                hostRoot = FileDescriptors.open("/", FileDescriptors.O_PATH | FileDescriptors.O_DIRECTORY
                        | FileDescriptors.O_CLOEXEC);
                try (InitNamespaces namespaces = InitNamespaces.open(pid, InitNamespaces.ALL)) {
                    namespaces.join();
                }
                FsContext.fchdir(hostRoot);
                FsContext.chroot(".");
                FsContext.chdir("/");
                result[0] = body.call();
            } catch (Throwable e) {
                failure[0] = e;
            } finally {
                FileDescriptors.closeQuietly(hostRoot);
            }
        });
        t.start();
        t.join();
        if (failure[0] instanceof Exception e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return value;
    }
}
