package io.jrunc.shim;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The task service's create and exec requests, as a back end receives them. */
public final class TaskRequests {
    private TaskRequests() {
    }

    /**
     * The standard streams containerd gives a process: paths of fifos it made (or other URIs it
     * understands), each empty when the stream is not wanted.
     */
    public record Stdio(String stdin, String stdout, String stderr, boolean terminal) {
    }

    /** One of the rootfs mounts containerd's snapshotter prepared (containerd.types.Mount). */
    public record Mount(String type, String source, String target, List<String> options) {
        public Mount {
            options = List.copyOf(options);
        }
    }

    /**
     * CreateTaskRequest: the bundle (config.json inside, rootfs to be mounted at bundle/rootfs when
     * {@code rootfs} is not empty), the containerd namespace, and the shim's runtime options.
     */
    public record Create(String id, Path bundle, String namespace, List<Mount> rootfs, Stdio stdio,
                         Map<String, String> options) {
        public Create {
            rootfs = List.copyOf(rootfs);
            options = Map.copyOf(options);
        }
    }

    /** ExecProcessRequest: the process as OCI {@code Process} JSON (what containerd sends). */
    public record Exec(String id, String execId, Stdio stdio, byte[] processJson) {
    }
}
