package io.jrunc.testsupport;

import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * A class skipped from its {@code @BeforeAll} (a requirement missing outside CI, a host limitation) is
 * reported as a skip of each of its tests, with the reason. Without this, surefire's XML report shows such
 * a class as zero tests and zero skips, with no reason (maven-surefire issue SUREFIRE-2300), and nothing
 * downstream can list the skip or fail a CI run on it.
 *
 * <p>Registered for every test through the ServiceLoader (META-INF/services) with JUnit's extension
 * autodetection, which the parent pom's surefire configuration and the test VM's init turn on. Only an
 * abort is taken over; a failure of {@code @BeforeAll} (a requirement missing under CI) fails the class
 * as before.
 */
public final class ClassSkips implements LifecycleMethodExecutionExceptionHandler, ExecutionCondition {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ClassSkips.class);
    private static final String REASON = "reason";

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        if (!(throwable instanceof TestAbortedException)) {
            throw throwable;
        }
        // the first reason counts: the class's later @BeforeAll methods still run, and may abort too
        context.getStore(NAMESPACE).getOrComputeIfAbsent(REASON, k -> String.valueOf(throwable.getMessage()));
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        // a test's store sees its class's values (stores inherit from the parent context)
        Optional<String> reason = context.getTestMethod().isPresent()
                ? Optional.ofNullable(context.getStore(NAMESPACE).get(REASON, String.class))
                : Optional.empty();
        return reason.map(ConditionEvaluationResult::disabled)
                .orElse(ConditionEvaluationResult.enabled("its class was not skipped"));
    }
}
