package io.jrunc.spec;

import java.util.List;
import java.util.Map;

/**
 * Checks a parsed config against the rules of runtime-spec (and the host-independent ones runc adds),
 * once, at the edge: code past {@link SpecLoader} may rely on what is checked here.
 *
 * <p>Every problem names the JSON path of the bad member, e.g. {@code process.args: must not be empty}
 * or {@code linux.namespaces[2].type: unknown namespace type "foo"}. Facts about the host (is SELinux
 * on, does the kernel have time namespaces, does a path exist) are not checked here: they belong to the
 * code that acts on them.
 *
 * <p>Required members whose Go zero value is a usable default ({@code user.uid}, a device rule's
 * {@code allow}, a seccomp argument's {@code value}) may be absent, as runc accepts them; required
 * members without a safe default (paths, ids of a mapping, rlimit values) must be present.
 */
public final class SpecValidator {

    private SpecValidator() {
    }

    /** Throws for the first problem found; {@link SpecException#problems()} holds all of them. */
    public static void validate(Spec spec) throws SpecException {
        throwIfAny(problems(spec));
    }

    /** Every problem in {@code spec}, in document order; empty when it is valid. */
    public static List<SpecProblem> problems(Spec spec) {
        Problems problems = new Problems();
        JsonPath root = JsonPath.ROOT;
        if (problems.requireSet(root.field("ociVersion"), spec.ociVersion())) {
            String problem = SpecVersion.problem(spec.ociVersion());
            if (problem != null) {
                problems.add(root.field("ociVersion"), problem);
            }
        }
        if (problems.requireSet(root.field("process"), spec.process())) {
            ProcessRules.check(spec.process(), root.field("process"), problems);
        }
        if (problems.requireSet(root.field("root"), spec.root())) {
            problems.requireSet(root.field("root").field("path"), spec.root().path());
        }
        List<String> namespaces = LinuxRules.namespaceTypes(spec.linux());
        requireUts(root.field("hostname"), spec.hostname(), namespaces, problems);
        requireUts(root.field("domainname"), spec.domainname(), namespaces, problems);
        MountRules.check(spec.mounts(), root.field("mounts"), problems);
        if (spec.hooks() != null) {
            checkHooks(spec.hooks(), root.field("hooks"), problems);
        }
        checkKeys(spec.annotations(), root.field("annotations"), problems);
        if (spec.linux() != null) {
            LinuxRules.check(spec.linux(), root.field("linux"), problems);
        }
        return problems.found();
    }

    /**
     * Checks a lone process document, as {@code exec --process} reads; paths are relative to it, e.g.
     * {@code args: must not be empty}.
     */
    public static void validateProcess(Process process) throws SpecException {
        Problems problems = new Problems();
        ProcessRules.check(process, JsonPath.ROOT, problems);
        throwIfAny(problems.found());
    }

    private static void throwIfAny(List<SpecProblem> problems) throws SpecException {
        if (!problems.isEmpty()) {
            throw new SpecException(problems);
        }
    }

    /** runc refuses to set a host or domain name in a UTS namespace the container shares with the host. */
    private static void requireUts(JsonPath path, String name, List<String> namespaces, Problems problems) {
        if (name != null && !name.isEmpty() && !namespaces.contains(NamespaceType.UTS.jsonName())) {
            problems.add(path, "requires a private UTS namespace");
        }
    }

    private static void checkHooks(Hooks hooks, JsonPath path, Problems problems) {
        checkHookList(hooks.prestart(), path.field("prestart"), problems);
        checkHookList(hooks.createRuntime(), path.field("createRuntime"), problems);
        checkHookList(hooks.createContainer(), path.field("createContainer"), problems);
        checkHookList(hooks.startContainer(), path.field("startContainer"), problems);
        checkHookList(hooks.poststart(), path.field("poststart"), problems);
        checkHookList(hooks.poststop(), path.field("poststop"), problems);
    }

    private static void checkHookList(List<Hook> hooks, JsonPath path, Problems problems) {
        if (hooks == null) {
            return;
        }
        for (int i = 0; i < hooks.size(); i++) {
            Hook hook = hooks.get(i);
            JsonPath at = path.index(i);
            problems.requireAbsolutePath(at.field("path"), hook.path());
            if (hook.timeout() != null && hook.timeout() <= 0) {
                problems.add(at.field("timeout"), "must be greater than zero");
            }
        }
    }

    /** Annotation, sysctl and unified keys: the spec forbids the empty key. */
    static void checkKeys(Map<String, ?> map, JsonPath path, Problems problems) {
        if (map != null && map.containsKey("")) {
            problems.add(path, "keys must not be empty");
        }
    }
}
