package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** containerd's rule: sha256 of filepath.Join(address, namespace, group) under /run/containerd/s. */
class ShimAddressTest {
    @Test
    void addressIsTheHashOfTheJoinedPath() {
        // expected values from `printf '%s' /run/containerd/containerd.sock/default/abc | sha256sum`
        assertEquals("unix:///run/containerd/s/8cb244a719603fe00870d5ce1d8e1f1db43a654cb993d107df1f1ae23ddffa59",
                ShimAddress.of("/run/containerd/containerd.sock", "default", "abc"));
        assertEquals("unix:///run/containerd/s/25d3ffb28ff5bbe0e0c30d4932cb3af16df3227c0da4984c7539ce658fa0ce7c",
                ShimAddress.of("/tmp/x/containerd.sock", "k8s.io", "sandbox1"));
    }

    @Test
    void joinCleansAsGoDoes() {
        // filepath.Join("/tmp//x/./containerd.sock/", "k8s.io", "sandbox1") == "/tmp/x/containerd.sock/k8s.io/sandbox1"
        assertEquals(ShimAddress.of("/tmp/x/containerd.sock", "k8s.io", "sandbox1"),
                ShimAddress.of("/tmp//x/./containerd.sock/", "k8s.io", "sandbox1"));
        assertEquals("/a/c", ShimAddress.goJoin("/a/b/..", "", "c"));
        assertEquals("/", ShimAddress.goClean("/../.."));
        assertEquals("../a", ShimAddress.goClean("../a/"));
        assertEquals(".", ShimAddress.goClean(""));
        assertEquals("a/b", ShimAddress.goJoin("a", "b"));
    }

    @Test
    void pathOfAnAddress() {
        assertEquals(Path.of("/run/containerd/s/ab"), ShimAddress.pathOf("unix:///run/containerd/s/ab"));
        assertEquals(Path.of("/run/containerd/containerd.sock.ttrpc"),
                ShimAddress.pathOf("/run/containerd/containerd.sock.ttrpc"));
    }
}
