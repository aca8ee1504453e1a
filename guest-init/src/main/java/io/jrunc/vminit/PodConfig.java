package io.jrunc.vminit;

import java.util.List;

/**
 * What Configure set that containers take from the pod: the hostname, and the pod's files (resolver,
 * hosts, hostname), which every container gets bound read-only at the same paths. Volatile: any thread
 * reads them.
 */
final class PodConfig {
    volatile String hostname = "";
    volatile List<String> files = List.of();
}
