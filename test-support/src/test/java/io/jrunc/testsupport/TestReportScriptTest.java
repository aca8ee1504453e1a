package io.jrunc.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/test-report.java run as `make test` runs it, on reports written here in the two formats it reads:
 * surefire's (a skip's reason in its message attribute, or only in the text of an abort's stack trace) and
 * the guest's JUnit legacy report.
 */
class TestReportScriptTest {
    static final Path SCRIPT = Path.of(System.getProperty("user.dir")).resolveSibling("scripts/test-report.java");

    @TempDir
    Path dir;

    record Run(int exit, String out) {}

    Run report(boolean ci, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("CI");
        if (ci) {
            pb.environment().put("CI", "true");
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Run(p.exitValue(), out);
    }

    static String testCase(String className, String name, String body) {
        return "<testcase name=\"" + name + "\" classname=\"" + className + "\" time=\"0.1\">" + body + "</testcase>\n";
    }

    Path reports(String name, String... testCases) throws IOException {
        Path reports = Files.createDirectories(dir.resolve(name));
        Files.writeString(reports.resolve("TEST-" + name + ".xml"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<testsuite name=\"" + name + "\" tests=\"" + testCases.length + "\">\n" + String.join("", testCases)
                + "</testsuite>\n");
        return reports;
    }

    static final String I386 = testCase("io.jrunc.tests.SeccompTest", "a32BitSyscallIsDecidedByTheX86Rules",
            "<skipped type=\"org.opentest4j.TestAbortedException\"><![CDATA[org.opentest4j.TestAbortedException: "
            + HostLimitation.PREFIX + "kernel without IA-32 emulation\n\tat org.junit.jupiter.api.Assumptions.abort("
            + "Assumptions.java:1)\n]]></skipped>");
    static final String PASSED = testCase("io.jrunc.tests.LifecycleTest", "runs", "");

    @Test
    void aSkippedEndToEndTestFailsACiRunAndIsListedElsewhere() throws Exception {
        Path reports = reports("tests", PASSED, I386, testCase("io.jrunc.tests.e2e.DockerTest", "runsAContainer",
                "<skipped message=\"missing: /usr/bin/docker: install the Debian package docker.io\"/>"));
        Run ci = report(true, reports.toString());
        assertEquals(1, ci.exit(), ci.out());
        assertTrue(ci.out().contains("SKIPPED io.jrunc.tests.e2e.DockerTest.runsAContainer [" + reports
                + "]: missing: /usr/bin/docker: install the Debian package docker.io"), ci.out());
        assertTrue(ci.out().contains("FAILED: 1 skipped tests (SKIPPED above) are not host limitations"), ci.out());
        assertTrue(ci.out().contains("skipped io.jrunc.tests.SeccompTest.a32BitSyscallIsDecidedByTheX86Rules"
                + " [" + reports + "]: host limitation: kernel without IA-32 emulation"), ci.out());

        Run local = report(false, reports.toString());
        assertEquals(0, local.exit(), local.out());
        assertTrue(local.out().contains("3 tests, 2 skipped (1 host limitations, 1 not)"), local.out());
        assertTrue(local.out().contains("the 1 SKIPPED would fail a CI run"), local.out());
    }

    @Test
    void hostLimitationsAreTheOnlySkipsACiRunAllows() throws Exception {
        Run ci = report(true, reports("tests", PASSED, I386).toString());
        assertEquals(0, ci.exit(), ci.out());
        assertTrue(ci.out().contains("2 tests, 1 skipped (1 host limitations, 0 not)"), ci.out());
    }

    @Test
    void aClassWithNoTestReportedIsASkipCiDoesNotAllow() throws Exception {
        Run ci = report(true, reports("io.jrunc.tests.vm.PodVmTest").toString());
        assertEquals(1, ci.exit(), ci.out());
        assertTrue(ci.out().contains("SKIPPED io.jrunc.tests.vm.PodVmTest.(every test)"), ci.out());
    }

    @Test
    void eachClassGivenWithRanMustHaveRunATest() throws Exception {
        String guestSkip = testCase("io.jrunc.tests.vm.JruncGuestTest", "limits",
                "<skipped><![CDATA[host limitation: runs in the test VM (make test-vm) only]]></skipped>");
        Path reports = reports("guest", testCase("io.jrunc.tests.vm.CgroupV2GuestTest", "mode", ""), guestSkip);
        Run ok = report(false, "--ran", "io.jrunc.tests.vm.CgroupV2GuestTest", reports.toString());
        assertEquals(0, ok.exit(), ok.out());
        Run skipped = report(false, "--ran", "io.jrunc.tests.vm.JruncGuestTest", reports.toString());
        assertEquals(1, skipped.exit(), skipped.out());
        assertTrue(skipped.out().contains("FAILED: io.jrunc.tests.vm.JruncGuestTest ran no test: every test of it"
                + " was skipped"), skipped.out());
        Run absent = report(false, "--ran", "io.jrunc.tests.vm.NoSuchGuestTest", reports.toString());
        assertEquals(1, absent.exit(), absent.out());
        assertTrue(absent.out().contains("FAILED: io.jrunc.tests.vm.NoSuchGuestTest ran no test: it is in no report"),
                absent.out());
    }

    @Test
    void aDirectoryWithoutReportsFails() throws Exception {
        Run empty = report(false, Files.createDirectories(dir.resolve("empty")).toString());
        assertEquals(1, empty.exit(), empty.out());
        assertTrue(empty.out().contains("FAILED: no test reports (TEST-*.xml) in " + dir.resolve("empty")), empty.out());
    }
}
