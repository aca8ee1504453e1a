package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KernelModulesTest {
    @Test
    void readsEachModulesDependenciesAndNormalisesDashes() {
        Map<String, List<String>> depends = KernelModules.parseDepends(List.of(
                "virtio_pci: virtio virtio_ring virtio-pci-modern-dev", "virtio:", "", "virtio-ring:  "));
        assertEquals(Map.of("virtio_pci", List.of("virtio", "virtio_ring", "virtio_pci_modern_dev"),
                "virtio", List.of(), "virtio_ring", List.of()), depends);
    }

    @Test
    void aLineWithoutANameIsRefused() {
        assertThrows(IllegalStateException.class, () -> KernelModules.parseDepends(List.of("virtio virtio_ring")));
        assertThrows(IllegalStateException.class, () -> KernelModules.parseDepends(List.of(": virtio")));
    }

    @Test
    void dependenciesComeFirst() {
        // the image's order: a module before the ones it needs, as the image build lists them
        Map<String, List<String>> depends = KernelModules.parseDepends(List.of(
                "virtio_net: net_failover virtio virtio_ring", "net_failover: failover", "failover:",
                "virtio: ", "virtio_ring:"));
        List<String> order = KernelModules.order(depends);
        assertEquals(5, order.size());
        for (Map.Entry<String, List<String>> e : depends.entrySet()) {
            for (String dep : e.getValue()) {
                assertEquals(true, order.indexOf(dep) < order.indexOf(e.getKey()), dep + " before " + e.getKey() + ": " + order);
            }
        }
    }

    @Test
    void aMissingDependencyOrACycleIsAnError() {
        assertThrows(IllegalStateException.class, () -> KernelModules.order(KernelModules.parseDepends(List.of("a: b"))));
        assertThrows(IllegalStateException.class, () -> KernelModules.order(KernelModules.parseDepends(List.of("a: b", "b: a"))));
    }

    @Test
    void theNameIsTheFileNameWithUnderscores() {
        assertEquals("virtio_pci", KernelModules.name(Path.of("/lib/modules/virtio-pci.ko")));
    }
}
