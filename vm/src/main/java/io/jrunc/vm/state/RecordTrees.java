package io.jrunc.vm.state;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The records as JSON trees, the same trees an ObjectMapper's valueToTree makes of them (the same
 * fields in the same order; PodRecord's config and vm unwrapped, its network left out when it is
 * none), built by hand: the mapper's introspection of a record cost a cold JVM a few hundred ms, which
 * `ls` and `inspect` paid for the few fields they print.
 */
public final class RecordTrees {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private RecordTrees() {
    }

    public static ObjectNode of(ContainerRecord c) {
        ObjectNode o = NODES.objectNode().put("name", c.name()).put("pod", c.pod()).put("bundle", c.bundle())
                .put("serial", c.serial());
        strings(o.putArray("args"), c.args());
        o.put("createdAt", c.createdAt()).put("lastState", c.lastState()).put("exitCode", c.exitCode());
        ArrayNode shares = o.putArray("shares");
        for (HostShare s : c.shares()) {
            shares.addObject().put("tag", s.tag()).put("hostPath", s.hostPath()).put("containerPath", s.containerPath())
                    .put("readOnly", s.readOnly());
        }
        return o.put("pid", c.pid());
    }

    public static ObjectNode of(PodRecord p) {
        ObjectNode o = NODES.objectNode().put("name", p.name()).put("anonymous", p.anonymous()).put("createdAt", p.createdAt());
        PodRecord.Config c = p.config();
        o.put("cpus", c.cpus()).put("memoryBytes", c.memoryBytes()).put("hostname", c.hostname());
        strings(o.putArray("dns"), c.dns());
        strings(o.putArray("addHosts"), c.addHosts());
        ObjectNode sysctls = o.putObject("sysctls");
        for (Map.Entry<String, String> e : c.sysctls().entrySet()) {
            sysctls.put(e.getKey(), e.getValue());
        }
        o.put("kernel", c.kernel()).put("initrd", c.initrd()).put("swapBytes", c.swapBytes());
        PodRecord.Network n = c.network();
        if (!n.isNone()) {
            ObjectNode net = o.putObject("network").put("mode", n.mode());
            strings(net.putArray("publish"), n.publish());
            strings(net.putArray("dnsSearch"), n.dnsSearch());
            strings(net.putArray("dnsOptions"), n.dnsOptions());
            net.put("mac", n.mac());
            strings(net.putArray("addresses"), n.addresses());
            net.put("gateway", n.gateway()).put("mtu", n.mtu());
        }
        PodRecord.Vm vm = p.vm();
        o.put("qemuPid", vm.qemuPid()).put("qemuStartedAt", vm.qemuStartedAt()).put("bootedDigest", vm.bootedDigest());
        if (vm.restored()) {
            o.put("restored", true);
        }
        return p.pooled() ? o.put("pooled", true) : o;
    }

    private static void strings(ArrayNode into, List<String> values) {
        values.forEach(into::add);
    }
}
