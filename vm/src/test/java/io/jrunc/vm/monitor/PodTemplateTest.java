package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.vm.Pods;
import io.jrunc.vm.qemu.VmImage;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.HostShare;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which pods the pod template stands for: an anonymous pod whose VM's command line is the template's
 * (its directory and hardware address aside), whose containers share no host directory, booted from
 * the image the template was made from. (Making and restoring one: PodTemplateVmTest.)
 */
class PodTemplateTest {
    private static final VmImage IMAGE = new VmImage(Path.of("/img/vmlinuz"), Path.of("/img/initrd.cpio"),
            new VmImage.AgentRoot(Path.of("/img/agent-root.img"), 8L << 20), "sha256:image", "quiet");

    @TempDir
    Path dir;

    StateRoot root;

    /** A template.json as `pod template` writes it, for pods of {@code config}, its guest's address {@code mac}. */
    void template(PodRecord.Config config, String mac, String digest) throws Exception {
        root = new StateRoot(dir.resolve("root"));
        Path template = PodTemplate.dir(root);
        Files.createDirectories(template);
        Path boot = template.resolve("boot");
        var record = new ObjectMapper().createObjectNode().put("digest", digest).put("mac", mac).put("madeAt", 1);
        record.putPOJO("line", PodTemplate.normalized(PodTemplate.line(IMAGE, config, boot, template, false, false), boot, mac));
        Files.writeString(template.resolve(PodTemplate.RECORD), new ObjectMapper().writeValueAsString(record));
    }

    static PodRecord.Config config(long memory) throws io.jrunc.vm.VmException {
        return PodRecord.Config.of(1, memory, "h").withNetwork(Pods.NetworkSpec.DEFAULT.resolve());
    }

    boolean matches(PodRecord pod) throws Exception {
        return PodTemplate.matching(root, pod, IMAGE, false, root.podDir(pod.name())).isPresent();
    }

    @Test
    void anAnonymousPodOfTheSameLineIsRestoredWithTheTemplatesAddress() throws Exception {
        PodRecord.Config made = config(512L << 20);
        template(made, made.network().mac(), IMAGE.digest());
        // another pod of the same kind: its own hardware address and directory
        PodRecord pod = PodRecord.created("anon-1", true, config(512L << 20));
        root.write(pod);
        assertTrue(!pod.config().network().mac().equals(made.network().mac()));
        var saved = PodTemplate.matching(root, pod, IMAGE, false, root.podDir(pod.name()));
        assertTrue(saved.isPresent());
        assertEquals(made.network().mac(), PodTemplate.withTemplateMac(pod, saved.get()).config().network().mac());

        // a named pod may later take a container with a shared directory: never restored
        PodRecord named = PodRecord.created("named", false, config(512L << 20));
        root.write(named);
        assertFalse(matches(named));
        // another size, another accelerator, another image: the line or the digest differs
        PodRecord bigger = PodRecord.created("anon-2", true, config(1L << 30));
        root.write(bigger);
        assertFalse(matches(bigger));
        assertFalse(PodTemplate.matching(root, pod, IMAGE, true, root.podDir(pod.name())).isPresent());
        VmImage other = new VmImage(IMAGE.kernel(), IMAGE.initrd(), IMAGE.agentRoot(), "sha256:other", IMAGE.cmdline());
        assertFalse(PodTemplate.matching(root, pod, other, false, root.podDir(pod.name())).isPresent());
    }

    @Test
    void aPodWhoseContainerSharesAHostDirectoryBoots() throws Exception {
        PodRecord.Config made = config(512L << 20);
        template(made, made.network().mac(), IMAGE.digest());
        PodRecord pod = PodRecord.created("anon-1", true, config(512L << 20));
        root.write(pod);
        root.write(new ContainerRecord("c", pod.name(), "/b", "jr01", List.of("true"), 1, "creating", 0,
                List.of(new HostShare("fs1", "/srv", "/data", false))));
        assertFalse(matches(pod));
        // a root shared by virtio-fs (no disk, no serial) too
        root.write(new ContainerRecord("c", pod.name(), "/b", "", List.of("true"), 1, "creating", 0));
        assertFalse(matches(pod));
        root.write(new ContainerRecord("c", pod.name(), "/b", "jr01", List.of("true"), 1, "creating", 0));
        assertTrue(matches(pod));
        // no template (removed): boots
        PodTemplate.remove(root);
        assertFalse(matches(pod));
    }
}
