package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The cgroup.subtree_control of one cgroup v2 cgroup: which controllers its children get.
 *
 * <p>A child can only use a controller its parent enables, so every ancestor of a container's cgroup
 * enables what it has (its cgroup.controllers), as runc's fs2 {@code CreateCgroupPath} does. One rule
 * of the kernel is honoured up front instead of ignoring the kernel's EBUSY: a cgroup other than the
 * root cannot enable domain controllers while it has processes of its own ("no internal processes",
 * Documentation/admin-guide/cgroup-v2.rst), so such a cgroup is left as it is.
 */
record SubtreeControl(Path cgroup) {

    /** Enables every controller available in this cgroup that is not enabled yet; see the class comment. */
    void enableAvailable() throws CgroupException {
        Set<String> missing = new LinkedHashSet<>(words("cgroup.controllers"));
        missing.removeAll(words("cgroup.subtree_control"));
        if (missing.isEmpty() || hasOwnProcessesBelowRoot()) {
            return;
        }
        List<String> additions = new ArrayList<>();
        missing.forEach(controller -> additions.add("+" + controller));
        if (tryWrite(String.join(" ", additions))) {
            return;
        }
        // One refused controller fails the whole write; enable the others one by one (as runc does)
        // and let the resource writes that need a missing one report it.
        for (String addition : additions) {
            tryWrite(addition);
        }
    }

    // Only the root cgroup lacks cgroup.type (the kernel marks it CFTYPE_NOT_ON_ROOT), and only the
    // root is exempt from the no-internal-process rule.
    private boolean hasOwnProcessesBelowRoot() throws CgroupException {
        return Files.exists(cgroup.resolve("cgroup.type"))
                && !CgroupDirectory.readIds(cgroup.resolve(CgroupDirectory.PROCS)).isEmpty();
    }

    private Set<String> words(String file) throws CgroupException {
        try {
            String content = Files.readString(cgroup.resolve(file)).trim();
            return content.isEmpty() ? Set.of() : new LinkedHashSet<>(List.of(content.split("\\s+")));
        } catch (NoSuchFileException e) {
            throw new CgroupException(cgroup + " is not a cgroup v2 directory: no " + file, e);
        } catch (IOException e) {
            throw new CgroupException("cannot read " + cgroup.resolve(file) + ": " + CgroupDirectory.reason(e), e);
        }
    }

    private boolean tryWrite(String change) {
        try {
            Files.writeString(cgroup.resolve("cgroup.subtree_control"), change, StandardOpenOption.WRITE);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
