package io.jrunc.tests;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Gives each test a {@link Sandbox} and, after it, cleans up and checks nothing was left behind. */
public final class JruncExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(JruncExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == Sandbox.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        return c.getStore(NS).getOrComputeIfAbsent("sandbox",
                k -> new Sandbox(c.getRequiredTestMethod().getName()), Sandbox.class);
    }

    @Override
    public void afterEach(ExtensionContext c) {
        Sandbox s = c.getStore(NS).remove("sandbox", Sandbox.class);
        if (s != null) {
            s.close();
        }
    }
}
