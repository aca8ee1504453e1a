package io.jrunc.cgroups;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * cgroupfs through open(2)/write(2) from the bindings module, because the errno of a write decides
 * what happens next (EINVAL on cpu.max.burst is retried after cpu.max, ENOENT on memory.swap.max is
 * tolerated for "max" and "0") and java.nio does not report it. Reads use java.nio: their failures
 * only need a message, and the two that matter map to errno from the exception type.
 */
final class KernelCgroupFiles implements CgroupFiles {
    static final KernelCgroupFiles INSTANCE = new KernelCgroupFiles();

    private KernelCgroupFiles() {
    }

    @Override
    public void write(Path file, String value) throws CgroupException {
        int fd;
        try {
            fd = FileDescriptors.open(file.toString(), FileDescriptors.O_WRONLY | FileDescriptors.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw writeFailure(file, value, e.errno(), e);
        }
        try {
            FileDescriptors.write(fd, value.getBytes(StandardCharsets.UTF_8));
        } catch (ErrnoException e) {
            throw writeFailure(file, value, e.errno(), e);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    static CgroupException writeFailure(Path file, String value, int errno, Throwable cause) {
        return new CgroupException("failed to write \"" + value + "\" to \"" + file + "\": " + Errno.describe(errno),
                errno, cause);
    }

    @Override
    public String read(Path file) throws CgroupException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new CgroupException("open " + file + ": no such file or directory", Errno.ENOENT, e);
        } catch (AccessDeniedException e) {
            throw new CgroupException("open " + file + ": permission denied", Errno.EACCES, e);
        } catch (IOException e) {
            throw new CgroupException("read " + file + ": " + CgroupDirectory.reason(e), e);
        }
    }

    @Override
    public boolean exists(Path file) {
        return Files.exists(file);
    }
}
