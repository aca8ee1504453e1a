package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class KernelModulesTest {
    private static byte[] modinfo(String... strings) {
        return ("\u007fELF junk\0" + String.join("\0", strings) + "\0more").getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void readsTheDependsFieldAndNormalisesDashes() {
        assertEquals(List.of("virtio", "virtio_ring", "virtio_pci_modern_dev"), KernelModules.dependsOf(
                modinfo("license=GPL", "depends=virtio,virtio_ring,virtio-pci-modern-dev", "intree=Y")));
    }

    @Test
    void anEmptyOrMissingDependsFieldMeansNone() {
        assertEquals(List.of(), KernelModules.dependsOf(modinfo("depends=", "name=virtio")));
        assertEquals(List.of(), KernelModules.dependsOf(modinfo("name=virtio")));
    }

    @Test
    void onlyAWholeStringCounts() {
        // "xdepends=" inside another string is not the field
        assertEquals(List.of("b"), KernelModules.dependsOf(modinfo("notdepends=a", "depends=b")));
    }

    @Test
    void theNameIsTheFileNameWithUnderscores() {
        assertEquals("virtio_pci", KernelModules.name(Path.of("/lib/modules/virtio-pci.ko")));
    }
}
