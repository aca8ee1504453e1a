package io.jrunc.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequirementsTest {

    @Test
    void aMissingRequirementFailsUnderCiAndSkipsElsewhere() {
        String missing = "qemu-system-x86_64: install qemu-system-x86";
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> Requirements.require(false, missing, true));
        assertTrue(failed.getMessage().contains("CI=true") && failed.getMessage().endsWith(missing),
                failed.getMessage());
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> Requirements.require(false, missing, false));
        assertEquals("missing: " + missing, skipped.getMessage());
        assertTrue(!skipped.getMessage().startsWith(HostLimitation.PREFIX), "a requirement is no host limitation");
    }

    @Test
    void aMetRequirementDoesNothing() {
        Requirements.require(true, "nothing", true);
        Requirements.require(true, "nothing", false);
    }

    @Test
    void missingCommandsAreNamedWithTheirPackages() {
        String env = System.getenv("CI");
        Throwable t = assertThrows(Throwable.class,
                () -> Requirements.requireCommands("no-such-package", "sh", "no-such-command-jrunc"));
        assertTrue(t.getMessage().contains("no-such-command-jrunc (not on PATH): install the Debian package(s)"
                + " no-such-package"), t.getMessage());
        assertTrue(!t.getMessage().contains("sh,"), "only the missing ones: " + t.getMessage());
        assertEquals("true".equals(env) ? AssertionFailedError.class : TestAbortedException.class, t.getClass());
        Requirements.requireCommands("dash", "sh");
    }

    @Test
    void aHostLimitationSkipsEvenUnderCiAndSaysSo() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> HostLimitation.skipUnless(false, "kernel without IA-32 emulation"));
        assertEquals("host limitation: kernel without IA-32 emulation", e.getMessage());
        HostLimitation.skipUnless(true, "never");
    }
}
