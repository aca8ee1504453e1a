package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.jrunc.tests.cri.v1.CriProto;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The hand-written CRI method list and the compiled schema name the same methods with the same types. */
class CriMethodsTest {
    private static String signature(String fullMethodName, String input, String output) {
        return fullMethodName + "(" + input + ") " + output;
    }

    @Test
    void everyMethodOfTheSchemaIsListedWithItsTypes() {
        Set<String> schema = new TreeSet<>();
        for (ServiceDescriptor service : CriProto.getDescriptor().getServices()) {
            for (var method : service.getMethods()) {
                schema.add(signature(service.getFullName() + "/" + method.getName(),
                        method.getInputType().getFullName(), method.getOutputType().getFullName()));
            }
        }
        Set<String> listed = new TreeSet<>();
        for (MethodDescriptor<?, ?> method : CriMethods.all()) {
            assertEquals(MethodDescriptor.MethodType.UNARY, method.getType(), method.getFullMethodName());
            listed.add(signature(method.getFullMethodName(), prototype(method.getRequestMarshaller()),
                    prototype(method.getResponseMarshaller())));
        }
        assertEquals(String.join("\n", schema), String.join("\n", listed));
    }

    @Test
    void theSchemaIsTheCriApisRuntimeV1() {
        assertEquals("runtime.v1", CriProto.getDescriptor().getPackage());
        assertEquals("/runtime.v1.RuntimeService/RunPodSandbox", "/" + CriMethods.RUN_POD_SANDBOX.getFullMethodName());
    }

    private static String prototype(MethodDescriptor.Marshaller<?> marshaller) {
        Object message = ((MethodDescriptor.PrototypeMarshaller<?>) marshaller).getMessagePrototype();
        return ((Message) message).getDescriptorForType().getFullName();
    }
}
