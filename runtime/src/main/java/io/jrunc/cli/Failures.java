package io.jrunc.cli;

import io.jrunc.runtime.ContainerException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The one-line text of a failure that no code turned into a {@link ContainerException}: what a user
 * reads, without Java class names, in the words of the Go errors runc prints for the same causes
 * ("open /x: no such file or directory").
 */
final class Failures {
    private Failures() {}

    static String describe(Throwable e) {
        if (e instanceof ContainerException) {
            return e.getMessage();
        }
        if (e instanceof UncheckedIOException && e.getCause() != null) {
            return describe(e.getCause());
        }
        if (e instanceof OutOfMemoryError) {
            return "out of memory (jrunc's heap is 64 MB): " + e.getMessage();
        }
        if (e instanceof StackOverflowError) {
            return "input nested too deeply (stack overflow)";
        }
        if (e instanceof FileSystemException f) {
            String file = f.getFile() == null ? "" : f.getFile();
            String other = f.getOtherFile() == null ? "" : " " + f.getOtherFile();
            String reason = switch (f) {
                case NoSuchFileException n -> "no such file or directory";
                case AccessDeniedException a -> "permission denied";
                case FileAlreadyExistsException x -> "file exists";
                case NotDirectoryException d -> "not a directory";
                case DirectoryNotEmptyException d -> "directory not empty";
                default -> f.getReason() == null ? "failed" : f.getReason().toLowerCase(java.util.Locale.ROOT);
            };
            return file + other + ": " + reason;
        }
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
