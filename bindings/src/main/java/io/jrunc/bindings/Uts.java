package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/** sethostname(2) and setdomainname(2), which act on the calling thread's UTS namespace. */
public final class Uts {
    private Uts() {}

    private static final NativeFunction SETHOSTNAME = Downcall.function("sethostname",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final NativeFunction SETDOMAINNAME = Downcall.function("setdomainname",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));

    public static void sethostname(String name) {
        Calls.checked(SETHOSTNAME, "sethostname", name, name, (long) name.getBytes(StandardCharsets.UTF_8).length);
    }

    public static void setdomainname(String name) {
        Calls.checked(SETDOMAINNAME, "setdomainname", name, name,
                (long) name.getBytes(StandardCharsets.UTF_8).length);
    }
}
