package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What jrunc refuses, as the README's table lists it: every row's error is what a real call prints, and
 * every refusal exercised here is a row of the table, so the table can neither promise a refusal that
 * does not happen nor leave one out. Each refused call exits 1 with one error line and leaves nothing.
 */
@ExtendWith(JruncExtension.class)
class RefusalsTest {
    private static final Path README = Path.of(System.getProperty("user.dir")).resolveSibling("README.md");
    /** A table row of the README's "Refused" section: `| asked for | error |`, the error in backticks. */
    private static final Pattern ROW = Pattern.compile("^\\| (.+?) \\| `([^`]+)`.*\\|$");

    @Test
    void everyRefusalTheReadmeListsHappensAndNoOther(Sandbox sb) throws Exception {
        Map<String, String> seen = new TreeMap<>();

        refuseConfig(sb, seen, "time offsets", b -> {
            namespaces(b).addObject().put("type", "time");
            b.config().withObjectProperty("linux").putObject("timeOffsets").putObject("monotonic").put("secs", 10);
        });
        refuseConfig(sb, seen, "joining a time namespace", b -> namespaces(b).addObject().put("type", "time")
                .put("path", "/proc/1/ns/time"));
        refuseConfig(sb, seen, "a seccomp architecture without a table", b -> b.seccomp(seccompFor("SCMP_ARCH_MIPS")));
        refuseConfig(sb, seen, "apparmor", b -> b.process().put("apparmorProfile", "unconfined"));
        refuseConfig(sb, seen, "selinux label", b -> b.process().put("selinuxLabel", "system_u:system_r:container_t:s0"));
        refuseConfig(sb, seen, "mount label", b -> b.config().withObjectProperty("linux")
                .put("mountLabel", "system_u:object_r:container_file_t:s0"));

        Bundle plain = sb.bundle().args("sleep", "600").write();
        refuse(sb, seen, "--systemd-cgroup", plain.dir(), List.of("--systemd-cgroup"), "create", sb.id("sd"));
        refuse(sb, seen, "--pidfd-socket", plain.dir(), List.of(), "create", "--pidfd-socket",
                sb.file("pidfd.sock").toString(), sb.id("pf"));
        refuse(sb, seen, "update with Intel RDT", plain.dir(), List.of(), "update", "--l3-cache-schema", "L3:0=f",
                sb.id("rdt"));

        // the exec refusals need a running container
        String id = sb.id("exec");
        sb.jrunc().in(plain.dir(), "create", id).ok();
        sb.jrunc().run("start", id).ok();
        refuse(sb, seen, "exec --tty in the foreground", plain.dir(), List.of(), "exec", "--tty", id, "true");
        refuse(sb, seen, "exec --process-label", plain.dir(), List.of(), "exec", "--process-label", "x", id, "true");
        refuse(sb, seen, "exec --cgroup", plain.dir(), List.of(), "exec", "--cgroup", "sub", id, "true");
        sb.jrunc().run("delete", "--force", id).ok();

        TreeSet<String> listed = new TreeSet<>(readmeErrors());
        TreeSet<String> matched = new TreeSet<>();
        for (Map.Entry<String, String> e : seen.entrySet()) {
            String row = listed.stream().filter(err -> e.getValue().contains(err.replace("[N]", "[" + indexIn(e.getValue()) + "]")))
                    .findFirst().orElse(null);
            assertTrue(row != null, e.getKey() + " is refused with \"" + e.getValue() + "\", which no row of "
                    + README + "'s table of refusals lists: " + listed);
            matched.add(row);
        }
        assertEquals(listed, matched, "rows of the README's table of refusals that no real call printed");
        assertEquals(List.of(), sb.leftovers());
    }

    private interface Edit {
        void apply(Bundle b);
    }

    private static ObjectNode seccompFor(String arch) {
        ObjectNode profile = Jrunc.JSON.createObjectNode().put("defaultAction", "SCMP_ACT_ALLOW");
        profile.putArray("architectures").add(arch);
        return profile;
    }

    private static ArrayNode namespaces(Bundle b) {
        return (ArrayNode) b.config().withObjectProperty("linux").withArrayProperty("namespaces");
    }

    private static void refuseConfig(Sandbox sb, Map<String, String> seen, String what, Edit edit) {
        Bundle b = sb.bundle().args("true");
        edit.apply(b);
        b.write();
        refuse(sb, seen, what, b.dir(), List.of(), "create", sb.id("r"));
    }

    /** Runs jrunc (global flags, then the command) and records its one error line. */
    private static void refuse(Sandbox sb, Map<String, String> seen, String what, Path dir, List<String> global,
                               String... args) {
        List<String> all = new ArrayList<>(global);
        all.addAll(List.of(args));
        Result r = sb.jrunc().in(dir, all.toArray(String[]::new));
        HostileInputTest.noStackTrace(r);
        assertEquals(1, r.exitCode(), r.describe(what + " refused with exit 1"));
        List<String> lines = r.stderr().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), r.describe(what + ": one error line"));
        seen.put(what, lines.get(0));
    }

    /** The namespace index in "linux.namespaces[3].path: ...", for the table's generic "[N]". */
    private static String indexIn(String message) {
        Matcher m = Pattern.compile("\\[(\\d+)]").matcher(message);
        return m.find() ? m.group(1) : "N";
    }

    /** The error column (its first backticked text) of every row under "Refused with a clear error". */
    private static List<String> readmeErrors() throws Exception {
        List<String> errors = new ArrayList<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(README)) {
            if (line.startsWith("Refused with a clear error")) {
                inSection = true;
            } else if (inSection && line.startsWith("|")) {
                Matcher m = ROW.matcher(line);
                if (m.matches()) {
                    errors.add(m.group(2));
                }
            } else if (inSection && !errors.isEmpty() && !line.isBlank()) {
                break;
            }
        }
        assertTrue(!errors.isEmpty(), "no table of refusals found in " + README);
        return errors;
    }
}
