package io.jrunc.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory's lock within one JVM: a long-lived caller (the containerd shim) loads one container
 * from several threads at once, and the second must wait for the first, as a second process does.
 */
class ContainerDirectoryTest {
    @Test
    void aSecondHolderInTheSameJvmWaitsInsteadOfFailing(@TempDir Path root) throws Exception {
        ContainerDirectory first = ContainerDirectory.create(root, "c1");
        Files.writeString(first.path().resolve("state.json"), "{}");
        CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> {
            try (ContainerDirectory d = ContainerDirectory.open(root, "c1")) {
                return d.path().getFileName().toString();
            }
        });
        try {
            second.get(300, TimeUnit.MILLISECONDS);
            throw new AssertionError("the second holder did not wait for the first");
        } catch (TimeoutException expected) {
            assertFalse(second.isDone());
        }
        first.close();
        assertEquals("c1", second.get(10, TimeUnit.SECONDS));
        // and the lock is free again for a third
        try (ContainerDirectory third = ContainerDirectory.open(root, "c1")) {
            assertTrue(Files.isDirectory(third.path()));
        }
    }
}
