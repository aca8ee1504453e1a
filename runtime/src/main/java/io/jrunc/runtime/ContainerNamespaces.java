package io.jrunc.runtime;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.FsContext;
import io.jrunc.runtime.init.InitNamespaces;
import java.util.concurrent.Callable;

/**
 * Runs code on a throwaway platform thread that has joined a container's namespaces (every one of
 * ipc, uts, net, pid, mnt and cgroup that differs from the runtime's), with either root:
 *
 * <ul>
 *   <li>the host's again ({@link Root#HOST}): the context of createContainer hooks, which the
 *       runtime-spec runs in the container's namespaces with their path resolved in the runtime's
 *       (runc runs them before pivot_root). The host root is reached through a descriptor opened
 *       before joining the mount namespace.
 *   <li>the container's ({@link Root#CONTAINER}), which joining its mount namespace gives: the context
 *       of startContainer hooks, whose path resolves in the container and which runc runs from the
 *       container's init after pivot_root, so that what they write lands in the container's root.
 * </ul>
 */
final class ContainerNamespaces {
    private ContainerNamespaces() {}

    enum Root { HOST, CONTAINER }

    static <T> T call(int pid, Root root, Callable<T> body) throws Exception {
        // Behind the container's root the class path's jars no longer resolve: open them first.
        io.jrunc.runtime.init.SpawnThread.openClassPath();
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
                if (root == Root.HOST) {
                    FsContext.fchdir(hostRoot);
                    FsContext.chroot(".");
                }
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
