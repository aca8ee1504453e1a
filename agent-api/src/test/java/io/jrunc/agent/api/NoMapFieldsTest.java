package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.jrunc.agent.api.pb.v1.AgentProto;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.Sysctl;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent's API declares no map field. protobuf-java makes a map field's default entry from the
 * file's descriptor, so the first message that touches one builds the descriptors of all of
 * agent.proto: a pod's first Configure paid that on the monitor's side and, under emulation, on the
 * agent's. Configure's sysctls are a repeated name and value instead, which is the same on the wire.
 */
class NoMapFieldsTest {
    @Test
    void noMessageOfTheAgentApiHasAMapField() {
        List<String> maps = new ArrayList<>();
        for (Descriptor type : AgentProto.getDescriptor().getMessageTypes()) {
            collectMaps(type, maps);
        }
        assertEquals(List.of(), maps);
    }

    /** A peer that declares sysctls as map<string, string> (as this API once did) sends these bytes. */
    @Test
    void sysctlsReadAsTheMapOnTheWire() throws Exception {
        byte[] asMap = HexFormat.of().parseHex(
                // field 4 (sysctls), length 24: an entry of key (1) "net.ipv4.ip_forward" and value (2) "1"
                "2218" + "0a13" + HexFormat.of().formatHex("net.ipv4.ip_forward".getBytes()) + "1201" + "31");
        ConfigurePodRequest parsed = ConfigurePodRequest.parseFrom(asMap);
        assertEquals(List.of(Sysctl.newBuilder().setName("net.ipv4.ip_forward").setValue("1").build()), parsed.getSysctlsList());
        assertEquals(HexFormat.of().formatHex(asMap), HexFormat.of().formatHex(parsed.toByteArray()));
    }

    private static void collectMaps(Descriptor type, List<String> maps) {
        for (FieldDescriptor field : type.getFields()) {
            if (field.isMapField()) {
                maps.add(type.getFullName() + "." + field.getName());
            }
        }
        type.getNestedTypes().forEach(nested -> collectMaps(nested, maps));
    }
}
