package io.jrunc.bindings;

/**
 * A libc call or system call failed. Carries the call, the errno value and its symbolic name, and the
 * argument that makes the failure meaningful (usually a path), so callers can print runc-style
 * messages ("open /x: no such file or directory") and branch on {@link #errno()}.
 */
public final class ErrnoException extends RuntimeException {
    private final String call;
    private final int errno;
    private final String subject;

    public ErrnoException(String call, int errno, String subject) {
        super(format(call, errno, subject));
        this.call = call;
        this.errno = errno;
        this.subject = subject;
    }

    private static String format(String call, int errno, String subject) {
        String what = subject == null || subject.isEmpty() ? call : call + " " + subject;
        return what + ": " + Errno.describe(errno) + " (" + Errno.name(errno) + ")";
    }

    public String call() { return call; }

    public int errno() { return errno; }

    public String errnoName() { return Errno.name(errno); }

    public String subject() { return subject; }

    /** The message in Go's style, as runc prints it: "open /x: no such file or directory". */
    public String goStyle() {
        String what = subject == null || subject.isEmpty() ? call : call + " " + subject;
        return what + ": " + Errno.describe(errno);
    }

    public boolean is(int value) { return errno == value; }
}
