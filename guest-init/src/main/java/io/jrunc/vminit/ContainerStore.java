package io.jrunc.vminit;

import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The containers of this pod, by id. An id is reserved first (so two creates under one name cannot
 * both proceed) and filled in once the container exists; Remove gives it up.
 */
final class ContainerStore {
    /** The runtime library's state root inside the guest (its per-container directory, FIFO, state). */
    static final Path STATE_ROOT = Path.of("/run/jrunc");
    /** Where each container's bundle (config.json, the mounted root filesystem) lives. */
    static final Path BUNDLES = Path.of("/run/jrunc-vminit/bundles");

    private static final Object RESERVED = new Object();
    private final Map<String, Object> entries = new ConcurrentHashMap<>();

    void reserve(String id) throws RpcException {
        if (entries.putIfAbsent(id, RESERVED) != null) {
            throw new RpcException(Code.ALREADY_EXISTS, "container " + id + " already exists");
        }
    }

    void fill(ContainerRecord record) {
        entries.put(record.id, record);
    }

    void release(String id) {
        entries.remove(id);
    }

    ContainerRecord get(String id) throws RpcException {
        if (entries.get(id) instanceof ContainerRecord r) {
            return r;
        }
        throw new RpcException(Code.NOT_FOUND, "no container " + id);
    }

    List<ContainerRecord> all() {
        List<ContainerRecord> list = new ArrayList<>();
        for (Object o : entries.values()) {
            if (o instanceof ContainerRecord r) {
                list.add(r);
            }
        }
        list.sort((a, b) -> Long.compare(a.createdAt, b.createdAt));
        return list;
    }
}
