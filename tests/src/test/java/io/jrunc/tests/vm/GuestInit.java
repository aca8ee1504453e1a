package io.jrunc.tests.vm;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * PID 1 of the test VM (scripts/vm-test.sh): the kernel runs the jlink'd java as /init with this class
 * as main (arguments from an @argfile). It mounts what the tests need, runs the JUnit classes named in
 * its arguments with the platform launcher, sends the JUnit XML report and an exit code to the host over
 * the second serial port, and powers the machine off.
 *
 * <p>Everything here is java.base plus three libc calls (mount, sync, reboot), each looked up once when
 * first needed: under software emulation every downcall handle costs up to a second.
 *
 * <p>Wire format on the results port (the host strips the tty's carriage returns):
 * <pre>
 * JRUNC-VM-FILE TEST-junit-jupiter.xml
 * ...the file...
 * JRUNC-VM-END
 * JRUNC-VM-SUMMARY tests=8 succeeded=8 failed=0 aborted=0 skipped=0 seconds=12.3
 * JRUNC-VM-EXIT 0
 * </pre>
 */
public final class GuestInit {
    /** linux/reboot.h LINUX_REBOOT_CMD_POWER_OFF (glibc's RB_POWER_OFF). */
    private static final int RB_POWER_OFF = 0x4321fedc;
    private static final long MS_NOSUID = 2, MS_NODEV = 4, MS_NOEXEC = 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private GuestInit() {
    }

    public static void main(String[] args) {
        long start = System.nanoTime();
        String resultsPort = System.getProperty("jrunc.vm.results", "/dev/ttyS1");
        int exit = 3;
        StringBuilder results = new StringBuilder();
        try {
            mountEssentials();
            log("main() started; mounts done at %.1f s after kernel start (%.2f s in main)", uptime(),
                    (System.nanoTime() - start) / 1e9);
            exit = runTests(args, results);
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            log("init failed: %s", trace);
            results.append("JRUNC-VM-ERROR ").append(t).append('\n');
        } finally {
            results.append("JRUNC-VM-EXIT ").append(exit).append('\n');
            try (OutputStream port = new FileOutputStream(resultsPort)) {
                port.write(results.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                log("cannot write the results to %s: %s", resultsPort, e);
            }
            log("powering off at %.1f s (exit %d)", uptime(), exit);
            powerOff();
        }
    }

    private static int runTests(String[] classNames, StringBuilder results) throws IOException {
        // a listed class the guest cannot load fails the run, named, before any test runs
        List<String> absent = Stream.of(classNames).filter(name -> !loadable(name)).toList();
        if (classNames.length == 0 || !absent.isEmpty()) {
            results.append("JRUNC-VM-ERROR ").append(classNames.length == 0 ? "no test class given"
                    : "no such test class in the guest: " + String.join(", ", absent)).append('\n');
            return 1;
        }
        Path reports = Path.of("/tmp/reports");
        Files.createDirectories(reports);
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Stream.of(classNames).map(DiscoverySelectors::selectClass).toList())
                // io.jrunc.testsupport.ClassSkips: a class skipped from @BeforeAll shows as skips of its tests
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                // a hung test fails alone instead of running into the host's timeout, which loses every result
                .configurationParameter("junit.jupiter.execution.timeout.default", "180 s")
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        PrintWriter console = new PrintWriter(System.out, true);
        LegacyXmlReportGeneratingListener xml = new LegacyXmlReportGeneratingListener(reports, console);
        long t0 = System.nanoTime();
        launcher.execute(request, summary, xml, new Progress());
        double seconds = (System.nanoTime() - t0) / 1e9;

        TestExecutionSummary s = summary.getSummary();
        s.printFailuresTo(console, 30);
        s.printTo(console);
        List<Path> files;
        try (Stream<Path> list = Files.list(reports)) {
            files = new ArrayList<>(list.sorted().toList());
        }
        for (Path file : files) {
            results.append("JRUNC-VM-FILE ").append(file.getFileName()).append('\n');
            String text = Files.readString(file);
            results.append(text);
            if (!text.endsWith("\n")) {
                results.append('\n');
            }
            results.append("JRUNC-VM-END\n");
        }
        results.append(String.format("JRUNC-VM-SUMMARY tests=%d succeeded=%d failed=%d aborted=%d skipped=%d"
                        + " containers-failed=%d seconds=%.1f%n", s.getTestsFoundCount(), s.getTestsSucceededCount(),
                s.getTestsFailedCount(), s.getTestsAbortedCount(), s.getTestsSkippedCount(),
                s.getContainersFailedCount(), seconds));
        boolean ok = s.getTotalFailureCount() == 0 && s.getTestsSucceededCount() > 0;
        return ok ? 0 : 1;
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, GuestInit.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** One line per finished test on the console, with its time: the log the host shows. */
    private static final class Progress implements TestExecutionListener {
        private final java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void executionStarted(TestIdentifier id) {
            started.put(id.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            log("SKIPPED %s: %s", id.getDisplayName(), reason);
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            long t = System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime());
            if (id.isTest() || result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                log("%s %s (%.1f s)%s", result.getStatus(), id.getDisplayName(), t / 1e9,
                        result.getThrowable().map(e -> ": " + e).orElse(""));
            }
        }
    }

    private static void mountEssentials() throws Throwable {
        // /dev first: the results port lives there, and a later failure should still reach the host
        mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, null);
        mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, null);
        mount("cgroup2", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, "nsdelegate");
        mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    }

    private static MethodHandle mountHandle;

    private static void mount(String source, String target, String type, long flags, String data) throws Throwable {
        if (mountHandle == null) {
            mountHandle = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("mount"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                    Linker.Option.captureCallState("errno"));
        }
        Files.createDirectories(Path.of(target));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = arena.allocate(CAPTURED);
            MemorySegment options = data == null ? MemorySegment.NULL : arena.allocateFrom(data);
            int rc = (int) mountHandle.invokeExact(errno, arena.allocateFrom(source), arena.allocateFrom(target),
                    arena.allocateFrom(type), flags, options);
            if (rc != 0) {
                throw new IOException("mount " + type + " on " + target + ": errno " + (int) ERRNO.get(errno, 0L));
            }
        }
    }

    private static void powerOff() {
        try {
            System.out.flush();
            LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("sync"), FunctionDescriptor.ofVoid())
                    .invokeExact();
            int rc = (int) LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("reboot"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)).invokeExact(RB_POWER_OFF);
            log("reboot(RB_POWER_OFF) returned %d", rc);
        } catch (Throwable t) {
            log("power off failed: %s", t);
        }
        // PID 1 exiting panics the kernel; with panic=-1 and qemu's -no-reboot that still ends the VM.
        Runtime.getRuntime().halt(1);
    }

    private static double uptime() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static void log(String format, Object... args) {
        System.out.println("jrunc-vm: " + String.format(format, args));
        System.out.flush();
    }
}
