// The skipped tests of a test run, with their reasons, from the JUnit XML reports that surefire writes
// for every module (MODULE/target/surefire-reports) and scripts/vm-test.sh writes for the guest
// (build/vm/reports). `make test` ends with it (docs/testing.md, "Skips and CI").
//
//   java scripts/test-report.java [--ran CLASS]... DIR...
//
// Prints every skipped test of the TEST-*.xml files in the DIRs with its reason. Exits 1 when
//   - the environment has CI=true and a skip is not a host limitation (its reason does not start with
//     "host limitation: ", which io.jrunc.testsupport.HostLimitation writes): under CI a test whose image,
//     tool, device or package is missing fails instead of skipping, so such a skip means a test bypassed
//     io.jrunc.testsupport.Requirements;
//   - a DIR holds no report;
//   - a --ran CLASS has no test in the reports that ran (not found, or every test skipped).
// Exits 2 on a usage error.

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

class TestReport {
    static final String HOST_LIMITATION = "host limitation: ";

    /** One test case of a report: where it came from, and its skip reason when it was skipped. */
    record TestCase(String where, String className, String name, boolean skipped, String reason) {
        boolean allowedSkip() {
            return reason.startsWith(HOST_LIMITATION);
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> ran = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--ran") && i + 1 < args.length) {
                ran.add(args[++i]);
            } else if (args[i].startsWith("-")) {
                usage("unknown option " + args[i]);
            } else {
                dirs.add(Path.of(args[i]));
            }
        }
        if (dirs.isEmpty()) {
            usage("no report directory");
        }
        boolean ci = "true".equals(System.getenv("CI"));
        List<String> failures = new ArrayList<>();
        List<TestCase> cases = new ArrayList<>();
        for (Path dir : dirs) {
            List<Path> reports = reports(dir);
            if (reports.isEmpty()) {
                failures.add("no test reports (TEST-*.xml) in " + dir);
            }
            for (Path report : reports) {
                cases.addAll(read(report, where(dir)));
            }
        }

        List<TestCase> skipped = cases.stream().filter(TestCase::skipped).toList();
        List<TestCase> notAllowed = skipped.stream().filter(c -> !c.allowedSkip()).toList();
        if (skipped.isEmpty()) {
            System.out.printf("test-report: %d tests, none skipped%n", cases.size());
        } else {
            System.out.printf("test-report: %d tests, %d skipped (%d host limitations, %d not):%n", cases.size(),
                    skipped.size(), skipped.size() - notAllowed.size(), notAllowed.size());
            // one line per class and reason: a class skipped from @BeforeAll skips each of its tests
            Map<List<String>, List<String>> groups = new LinkedHashMap<>();
            for (TestCase c : skipped) {
                groups.computeIfAbsent(List.of(c.allowedSkip() ? "skipped" : "SKIPPED", c.className(), c.where(),
                        c.reason()), k -> new ArrayList<>()).add(c.name());
            }
            groups.forEach((k, names) -> System.out.printf("  %s %s%s [%s]: %s%n", k.get(0), k.get(1),
                    names.size() == 1 ? "." + names.getFirst() : " (" + names.size() + " tests)", k.get(2), k.get(3)));
        }
        if (!notAllowed.isEmpty()) {
            if (ci) {
                failures.add(notAllowed.size() + " skipped tests (SKIPPED above) are not host limitations: under"
                        + " CI=true a missing image, tool, device or package fails its test, and only a host"
                        + " limitation (io.jrunc.testsupport.HostLimitation) may skip one");
            } else {
                System.out.printf("test-report: the %d SKIPPED would fail a CI run (CI=true)%n", notAllowed.size());
            }
        }
        for (String className : ran) {
            long run = cases.stream().filter(c -> c.className().equals(className) && !c.skipped()).count();
            if (run == 0) {
                boolean any = cases.stream().anyMatch(c -> c.className().equals(className));
                failures.add(className + " ran no test" + (any ? ": every test of it was skipped" : ": it is in no report"));
            }
        }
        for (String failure : failures) {
            System.err.println("test-report: FAILED: " + failure);
        }
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    static void usage(String why) {
        System.err.println("test-report: " + why + "\nusage: java scripts/test-report.java [--ran CLASS]... DIR...");
        System.exit(2);
    }

    static List<Path> reports(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
    }

    /** MODULE for MODULE/target/surefire-reports (or failsafe-reports), else the directory itself. */
    static String where(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        if (abs.getParent() != null && abs.getParent().getFileName() != null
                && abs.getParent().getFileName().toString().equals("target") && abs.getParent().getParent() != null) {
            return abs.getParent().getParent().getFileName().toString();
        }
        return dir.toString();
    }

    static List<TestCase> read(Path report, String where) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        DocumentBuilder builder = factory.newDocumentBuilder();
        org.w3c.dom.Document document = builder.parse(report.toFile());
        NodeList testCases = document.getElementsByTagName("testcase");
        List<TestCase> out = new ArrayList<>();
        if (testCases.getLength() == 0) {
            // what surefire writes for a class skipped from @BeforeAll: no test, no skip, no reason
            String suite = document.getDocumentElement().getAttribute("name");
            out.add(new TestCase(where, suite.isEmpty() ? report.getFileName().toString() : suite, "(every test)",
                    true, "no test in " + report.getFileName() + ": none ran, or a class was skipped before its"
                    + " tests and the reason lost (io.jrunc.testsupport.ClassSkips reports such skips; is the"
                    + " module missing the jrunc-test-support dependency?)"));
        }
        for (int i = 0; i < testCases.getLength(); i++) {
            Element testCase = (Element) testCases.item(i);
            Element skipped = child(testCase, "skipped");
            out.add(new TestCase(where, testCase.getAttribute("classname"), testCase.getAttribute("name"),
                    skipped != null, skipped == null ? "" : reason(skipped)));
        }
        return out;
    }

    static Element child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e;
            }
        }
        return null;
    }

    /**
     * The reason of a skip: its message attribute, else the first line of its text, which surefire and
     * JUnit's legacy report fill with the exception and its stack trace ("org.opentest4j.TestAbortedException:
     * Assumption failed: why").
     */
    static String reason(Element skipped) {
        String text = skipped.getAttribute("message");
        if (text.isBlank()) {
            text = skipped.getTextContent().strip().lines().findFirst().orElse("");
        }
        text = text.strip().replaceFirst("^org\\.opentest4j\\.TestAbortedException: ", "")
                .replaceFirst("^Assumption failed: ", "");
        return text.isEmpty() ? "(no reason given)" : text;
    }
}
