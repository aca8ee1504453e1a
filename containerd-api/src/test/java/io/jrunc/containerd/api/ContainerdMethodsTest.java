package io.jrunc.containerd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.Timestamp;
import io.jrunc.containerd.api.events.TaskExit;
import io.jrunc.containerd.api.services.events.EventsProto;
import io.jrunc.containerd.api.task.v2.DeleteResponse;
import io.jrunc.containerd.api.task.v2.ShimProto;
import io.jrunc.ttrpc.Method;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HexFormat;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The method tables against the compiled schema, and the names and bytes containerd expects. */
class ContainerdMethodsTest {
    private static String signature(String service, String method, String input, String output) {
        return service + "/" + method + "(" + input + ") " + output;
    }

    @Test
    void everyMethodOfTheSchemaIsListedWithItsTypes() throws Exception {
        Set<String> schema = new TreeSet<>();
        for (FileDescriptor file : new FileDescriptor[] {ShimProto.getDescriptor(), EventsProto.getDescriptor()}) {
            for (ServiceDescriptor service : file.getServices()) {
                for (MethodDescriptor method : service.getMethods()) {
                    schema.add(signature(service.getFullName(), method.getName(),
                            method.getInputType().getFullName(), method.getOutputType().getFullName()));
                }
            }
        }
        Set<String> listed = new TreeSet<>();
        for (Class<?> holder : new Class<?>[] {TaskMethods.class, EventsMethods.class}) {
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
    void namesAreContainerds() {
        assertEquals("containerd.task.v2.Task", ShimProto.getDescriptor().getServices().getFirst().getFullName());
        assertEquals("containerd.services.events.ttrpc.v1.Events",
                EventsProto.getDescriptor().getServices().getFirst().getFullName());
        assertEquals("containerd.events.TaskExit", TaskExit.getDescriptor().getFullName());
        assertEquals("runtimeoptions.v1.Options",
                io.jrunc.containerd.api.runtimeoptions.Options.getDescriptor().getFullName());
        assertEquals("io.containerd.cgroups.v2.Metrics",
                io.jrunc.containerd.api.cgroups.v2.Metrics.getDescriptor().getFullName());
    }

    /**
     * Bytes as containerd's Go code encodes them (field numbers and wire types written out by hand):
     * DeleteResponse{pid 42, exit_status 137, exited_at {seconds 1, nanos 2}}, and an Any of TaskExit.
     */
    @Test
    void wireBytesMatchContainerdsFieldNumbers() {
        DeleteResponse delete = DeleteResponse.newBuilder().setPid(42).setExitStatus(137)
                .setExitedAt(Timestamp.newBuilder().setSeconds(1).setNanos(2)).build();
        assertArrayEquals(HexFormat.of().parseHex("082a" + "108901" + "1a04" + "0801" + "1002"), delete.toByteArray());

        TaskExit exit = TaskExit.newBuilder().setContainerId("c").setId("e").setPid(7).setExitStatus(3).build();
        assertArrayEquals(HexFormat.of().parseHex("0a0163" + "120165" + "1807" + "2003"), exit.toByteArray());
        Any any = Any.newBuilder().setTypeUrl("containerd.events.TaskExit").setValue(exit.toByteString()).build();
        assertEquals("containerd.events.TaskExit", any.getTypeUrl());
    }
}
