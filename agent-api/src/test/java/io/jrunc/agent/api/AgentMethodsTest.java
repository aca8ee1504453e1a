package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.jrunc.agent.api.pb.VersionProto;
import io.jrunc.agent.api.pb.v1.AgentProto;
import io.jrunc.ttrpc.Method;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The hand-written method list and the compiled schema name the same methods with the same types. */
class AgentMethodsTest {
    private static String signature(String service, String method, String input, String output) {
        return service + "/" + method + "(" + input + ") " + output;
    }

    @Test
    void everyMethodOfTheSchemaIsListedWithItsTypes() throws Exception {
        Set<String> schema = new TreeSet<>();
        for (FileDescriptor file : new FileDescriptor[] {VersionProto.getDescriptor(), AgentProto.getDescriptor()}) {
            for (ServiceDescriptor service : file.getServices()) {
                for (MethodDescriptor method : service.getMethods()) {
                    schema.add(signature(service.getFullName(), method.getName(),
                            method.getInputType().getFullName(), method.getOutputType().getFullName()));
                }
            }
        }
        Set<String> listed = new TreeSet<>();
        for (Class<?> holder : new Class<?>[] {AgentMethods.class, AgentMethods.Pod.class,
                AgentMethods.Containers.class, AgentMethods.Processes.class, AgentMethods.Files.class}) {
            for (Field field : holder.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == Method.class) {
                    Method<?, ?> method = (Method<?, ?>) field.get(null);
                    listed.add(signature(method.service(), method.name(),
                            method.requestParser().parseFrom(new byte[0]).getDescriptorForType().getFullName(),
                            method.responseParser().parseFrom(new byte[0]).getDescriptorForType().getFullName()));
                }
            }
        }
        assertEquals(String.join("\n", schema), String.join("\n", listed));
    }

    @Test
    void theVersionServiceIsUnversionedAndTheApiIsMajorOne() {
        assertEquals("jrunc.agent", VersionProto.getDescriptor().getPackage());
        assertEquals("jrunc.agent.v" + AgentProtocol.MAJOR, AgentProto.getDescriptor().getPackage());
    }
}
