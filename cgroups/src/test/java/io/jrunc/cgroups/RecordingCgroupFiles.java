package io.jrunc.cgroups;

import io.jrunc.bindings.Errno;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fake cgroupfs under a temporary directory: files are plain files the test creates, writes replace
 * their content like the kernel's single write, and every write is recorded in order as
 * {@code "<path relative to the root>=<value>"}. Writing a file that does not exist fails with ENOENT
 * (the kernel does not create cgroup files); chosen writes can be made to fail with a chosen errno.
 */
class RecordingCgroupFiles implements CgroupFiles {
    final Path root;
    final List<String> writes = new ArrayList<>();
    private final Map<String, Deque<Integer>> failures = new HashMap<>();

    RecordingCgroupFiles(Path root) {
        this.root = root;
    }

    /** Creates a file (and its directories) with this content. */
    RecordingCgroupFiles file(String relative, String content) {
        try {
            Path file = root.resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The next write of {@code value} to {@code relative} (any value if null) fails with {@code errno}. */
    RecordingCgroupFiles failNext(String relative, String value, int errno) {
        failures.computeIfAbsent(relative + "=" + value, k -> new ArrayDeque<>()).add(errno);
        return this;
    }

    String content(String relative) throws IOException {
        return Files.readString(root.resolve(relative));
    }

    @Override
    public void write(Path file, String value) throws CgroupException {
        String relative = root.relativize(file).toString();
        Integer errno = poll(relative + "=" + value);
        if (errno == null) {
            errno = poll(relative + "=null");
        }
        if (errno == null && !Files.isRegularFile(file)) {
            errno = Errno.ENOENT;
        }
        if (errno != null) {
            throw KernelCgroupFiles.writeFailure(file, value, errno, null);
        }
        writes.add(relative + "=" + value);
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Integer poll(String key) {
        Deque<Integer> queue = failures.get(key);
        return queue == null ? null : queue.poll();
    }

    @Override
    public String read(Path file) throws CgroupException {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new CgroupException("open " + file + ": no such file or directory", Errno.ENOENT, e);
        }
    }

    @Override
    public boolean exists(Path file) {
        return Files.exists(file);
    }
}
