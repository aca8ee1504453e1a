package io.jrunc.shim;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/**
 * Makes the back end the options name. The back ends live in their own packages (io.jrunc.shim.host,
 * io.jrunc.shim.vm) and are built into the same jar; they are found by class name so that this module
 * compiles and its tests run without either. Each is constructed with its {@link TaskEvents} sink and,
 * when it has such a constructor, the settings of its options table ({@code [host]} or {@code [vm]}).
 */
public final class Backends {
    private Backends() {
    }

    static final String HOST_CLASS = "io.jrunc.shim.host.HostTaskBackend";
    static final String VM_CLASS = "io.jrunc.shim.vm.VmTaskBackend";

    /** A back end that cannot be made: the message says which and why. */
    public static final class BackendException extends Exception {
        BackendException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public static TaskBackend create(ShimOptions options, TaskEvents events) throws BackendException {
        String className = options.backend() == ShimOptions.Backend.VM ? VM_CLASS : HOST_CLASS;
        String name = options.backend().name().toLowerCase();
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException e) {
            throw new BackendException("the " + name + " back end (" + className + ") is not in this shim's class path", e);
        }
        try {
            try {
                Constructor<?> withSettings = type.getConstructor(TaskEvents.class, Map.class);
                return (TaskBackend) withSettings.newInstance(events, options.settings());
            } catch (NoSuchMethodException e) {
                if (!options.settings().isEmpty()) {
                    throw new BackendException("the " + name + " back end takes no settings, but the options give "
                            + options.settings().keySet(), e);
                }
                return (TaskBackend) type.getConstructor(TaskEvents.class).newInstance(events);
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new BackendException("the " + name + " back end failed to start: " + cause.getMessage(), cause);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new BackendException("the " + name + " back end (" + className + ") cannot be made: " + e, e);
        }
    }
}
