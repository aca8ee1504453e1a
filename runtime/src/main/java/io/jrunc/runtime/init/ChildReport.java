package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.SharedWords;

/**
 * What the container's child tells its creator while it runs, through words of the JVM's memory that
 * its chain writes ({@link SharedWords}): that it waits at the create gate, and the errno of each of its
 * two chdirs. A chain's steps return nothing to anyone; these words are how create and exec learn, before
 * they report success, that the working directory could not be entered, and why.
 */
public final class ChildReport implements AutoCloseable {
    static final int AT_CREATE_GATE = 0, CHDIR_BEFORE_CREDENTIALS = 1, CHDIR_AFTER_CREDENTIALS = 2;

    private final SharedWords words = new SharedWords(3);

    long address(int word) {
        return words.address(word);
    }

    /** True once the child waits at the create gate (its exec gate descriptor already open). */
    public boolean atCreateGate() {
        return words.get(AT_CREATE_GATE) != 0;
    }

    /**
     * 0, or the errno the working directory could not be entered with, by runc's rule: the first chdir
     * (with the runtime's identity) decides, unless it was refused for permission, when the second
     * (with the process's) does. Valid once the child has passed both: at the exec gate.
     */
    public int chdirError() {
        int before = words.get(CHDIR_BEFORE_CREDENTIALS);
        if (before == Errno.EACCES || before == Errno.EPERM) {
            return words.get(CHDIR_AFTER_CREDENTIALS);
        }
        return before;
    }

    /** runc's words for a working directory that could not be entered. */
    public static String chdirMessage(String cwd, int errno) {
        String dir = cwd == null || cwd.isEmpty() ? "/" : cwd;
        return "chdir to cwd (\"" + dir + "\") set in config.json failed: " + Errno.describe(errno);
    }

    /** Once the child can no longer write: it has exec'd, or died and been waited for. */
    @Override
    public void close() {
        words.close();
    }
}
