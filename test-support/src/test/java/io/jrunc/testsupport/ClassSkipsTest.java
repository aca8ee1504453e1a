package io.jrunc.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.AssertionFailedError;

/** Sample classes run with the launcher API and extension autodetection, as surefire runs every module's tests. */
class ClassSkipsTest {
    static final AtomicInteger RAN = new AtomicInteger();

    /** What the launcher reported: per display name, "skipped: reason" or the result's status (and throwable). */
    static Map<String, Object> run(Class<?> sample) {
        Map<String, Object> events = new TreeMap<>();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(sample))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true").build(),
                new TestExecutionListener() {
                    @Override
                    public void executionSkipped(TestIdentifier id, String reason) {
                        events.put(id.getDisplayName(), "skipped: " + reason);
                    }

                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        events.put(id.getDisplayName(), result.getThrowable().<Object>map(t -> t)
                                .orElse(result.getStatus()));
                    }
                });
        return events;
    }

    @Test
    void aClassSkippedFromBeforeAllIsReportedAsSkipsOfItsTestsWithTheReason() {
        RAN.set(0);
        Map<String, Object> events = run(HostLimited.class);
        assertEquals("skipped: host limitation: no such kernel", events.get("first()"), events.toString());
        assertEquals("skipped: host limitation: no such kernel", events.get("second()"), events.toString());
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, events.get("ClassSkipsTest$HostLimited"), events.toString());
        assertEquals(0, RAN.get(), "no test of the skipped class ran");
    }

    @Test
    void aRequirementMissingUnderCiStillFailsTheClass() {
        RAN.set(0);
        Map<String, Object> events = run(MissingUnderCi.class);
        assertInstanceOf(AssertionFailedError.class, events.get("ClassSkipsTest$MissingUnderCi"), events.toString());
        assertEquals(null, events.get("first()"), "its tests are neither run nor reported as skipped: " + events);
        assertEquals(0, RAN.get());
    }

    @Test
    void aClassNotSkippedRunsItsTests() {
        RAN.set(0);
        Map<String, Object> events = run(Unlimited.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, events.get("first()"), events.toString());
        assertEquals(1, RAN.get());
    }

    static class HostLimited {
        @BeforeAll
        static void check() {
            HostLimitation.skip("no such kernel");
        }

        @Test
        void first() {
            RAN.incrementAndGet();
        }

        @Test
        void second() {
            RAN.incrementAndGet();
        }
    }

    static class MissingUnderCi {
        @BeforeAll
        static void check() {
            Requirements.require(false, "qemu-system-x86_64: install qemu-system-x86", true);
        }

        @Test
        void first() {
            RAN.incrementAndGet();
        }
    }

    static class Unlimited {
        @BeforeAll
        static void check() {
            HostLimitation.skipUnless(true, "never");
        }

        @Test
        void first() {
            RAN.incrementAndGet();
        }
    }
}
