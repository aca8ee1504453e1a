package io.jrunc.bindings;

/**
 * Linux errno values (asm-generic/errno-base.h and errno.h, identical on x86-64 and aarch64) with their
 * symbolic names and the lower-case descriptions Go's syscall package prints, which runc's error
 * messages carry and callers sometimes match ("no such file or directory").
 */
public final class Errno {
    private Errno() {}

    public static final int EPERM = 1, ENOENT = 2, ESRCH = 3, EINTR = 4, EIO = 5, ENXIO = 6, E2BIG = 7,
            ENOEXEC = 8, EBADF = 9, ECHILD = 10, EAGAIN = 11, ENOMEM = 12, EACCES = 13, EFAULT = 14,
            EBUSY = 16, EEXIST = 17, EXDEV = 18, ENODEV = 19, ENOTDIR = 20, EISDIR = 21, EINVAL = 22,
            ENFILE = 23, EMFILE = 24, ENOTTY = 25, ETXTBSY = 26, EFBIG = 27, ENOSPC = 28, ESPIPE = 29,
            EROFS = 30, EMLINK = 31, EPIPE = 32, ERANGE = 34, ENAMETOOLONG = 36, ENOSYS = 38, ENOTEMPTY = 39,
            ELOOP = 40, ENODATA = 61, EOPNOTSUPP = 95, EADDRINUSE = 98, ECONNREFUSED = 111, ETIMEDOUT = 110;

    private static final String[][] TABLE = {
        {"", ""},
        {"EPERM", "operation not permitted"}, {"ENOENT", "no such file or directory"},
        {"ESRCH", "no such process"}, {"EINTR", "interrupted system call"}, {"EIO", "input/output error"},
        {"ENXIO", "no such device or address"}, {"E2BIG", "argument list too long"},
        {"ENOEXEC", "exec format error"}, {"EBADF", "bad file descriptor"}, {"ECHILD", "no child processes"},
        {"EAGAIN", "resource temporarily unavailable"}, {"ENOMEM", "cannot allocate memory"},
        {"EACCES", "permission denied"}, {"EFAULT", "bad address"}, {"ENOTBLK", "block device required"},
        {"EBUSY", "device or resource busy"}, {"EEXIST", "file exists"}, {"EXDEV", "invalid cross-device link"},
        {"ENODEV", "no such device"}, {"ENOTDIR", "not a directory"}, {"EISDIR", "is a directory"},
        {"EINVAL", "invalid argument"}, {"ENFILE", "too many open files in system"},
        {"EMFILE", "too many open files"}, {"ENOTTY", "inappropriate ioctl for device"},
        {"ETXTBSY", "text file busy"}, {"EFBIG", "file too large"}, {"ENOSPC", "no space left on device"},
        {"ESPIPE", "illegal seek"}, {"EROFS", "read-only file system"}, {"EMLINK", "too many links"},
        {"EPIPE", "broken pipe"}, {"EDOM", "numerical argument out of domain"},
        {"ERANGE", "numerical result out of range"}, {"EDEADLK", "resource deadlock avoided"},
        {"ENAMETOOLONG", "file name too long"}, {"ENOLCK", "no locks available"},
        {"ENOSYS", "function not implemented"}, {"ENOTEMPTY", "directory not empty"},
        {"ELOOP", "too many levels of symbolic links"}, {null, null} /* 41: unused (EWOULDBLOCK is EAGAIN) */,
        {"ENOMSG", "no message of desired type"}, {"EIDRM", "identifier removed"},
        {"ECHRNG", "channel number out of range"}, {"EL2NSYNC", "level 2 not synchronized"},
        {"EL3HLT", "level 3 halted"}, {"EL3RST", "level 3 reset"}, {"ELNRNG", "link number out of range"},
        {"EUNATCH", "protocol driver not attached"}, {"ENOCSI", "no CSI structure available"},
        {"EL2HLT", "level 2 halted"}, {"EBADE", "invalid exchange"}, {"EBADR", "invalid request descriptor"},
        {"EXFULL", "exchange full"}, {"ENOANO", "no anode"}, {"EBADRQC", "invalid request code"},
        {"EBADSLT", "invalid slot"}, {null, null} /* 58: unused (EDEADLOCK is EDEADLK) */,
        {"EBFONT", "bad font file format"}, {"ENOSTR", "device not a stream"}, {"ENODATA", "no data available"},
        {"ETIME", "timer expired"}, {"ENOSR", "out of streams resources"},
        {"ENONET", "machine is not on the network"}, {"ENOPKG", "package not installed"},
        {"EREMOTE", "object is remote"}, {"ENOLINK", "link has been severed"}, {"EADV", "advertise error"},
        {"ESRMNT", "srmount error"}, {"ECOMM", "communication error on send"}, {"EPROTO", "protocol error"},
        {"EMULTIHOP", "multihop attempted"}, {"EDOTDOT", "RFS specific error"}, {"EBADMSG", "bad message"},
        {"EOVERFLOW", "value too large for defined data type"}, {"ENOTUNIQ", "name not unique on network"},
        {"EBADFD", "file descriptor in bad state"}, {"EREMCHG", "remote address changed"},
        {"ELIBACC", "can not access a needed shared library"}, {"ELIBBAD", "accessing a corrupted shared library"},
        {"ELIBSCN", ".lib section in a.out corrupted"}, {"ELIBMAX", "attempting to link in too many shared libraries"},
        {"ELIBEXEC", "cannot exec a shared library directly"}, {"EILSEQ", "invalid or incomplete multibyte or wide character"},
        {"ERESTART", "interrupted system call should be restarted"}, {"ESTRPIPE", "streams pipe error"},
        {"EUSERS", "too many users"}, {"ENOTSOCK", "socket operation on non-socket"},
        {"EDESTADDRREQ", "destination address required"}, {"EMSGSIZE", "message too long"},
        {"EPROTOTYPE", "protocol wrong type for socket"}, {"ENOPROTOOPT", "protocol not available"},
        {"EPROTONOSUPPORT", "protocol not supported"}, {"ESOCKTNOSUPPORT", "socket type not supported"},
        {"EOPNOTSUPP", "operation not supported"}, {"EPFNOSUPPORT", "protocol family not supported"},
        {"EAFNOSUPPORT", "address family not supported by protocol"}, {"EADDRINUSE", "address already in use"},
        {"EADDRNOTAVAIL", "cannot assign requested address"}, {"ENETDOWN", "network is down"},
        {"ENETUNREACH", "network is unreachable"}, {"ENETRESET", "network dropped connection on reset"},
        {"ECONNABORTED", "software caused connection abort"}, {"ECONNRESET", "connection reset by peer"},
        {"ENOBUFS", "no buffer space available"}, {"EISCONN", "transport endpoint is already connected"},
        {"ENOTCONN", "transport endpoint is not connected"}, {"ESHUTDOWN", "cannot send after transport endpoint shutdown"},
        {"ETOOMANYREFS", "too many references: cannot splice"}, {"ETIMEDOUT", "connection timed out"},
        {"ECONNREFUSED", "connection refused"}, {"EHOSTDOWN", "host is down"}, {"EHOSTUNREACH", "no route to host"},
        {"EALREADY", "operation already in progress"}, {"EINPROGRESS", "operation now in progress"},
        {"ESTALE", "stale NFS file handle"}, {"EUCLEAN", "structure needs cleaning"},
        {"ENOTNAM", "not a XENIX named type file"}, {"ENAVAIL", "no XENIX semaphores available"},
        {"EISNAM", "is a named type file"}, {"EREMOTEIO", "remote I/O error"}, {"EDQUOT", "disk quota exceeded"},
        {"ENOMEDIUM", "no medium found"}, {"EMEDIUMTYPE", "wrong medium type"}, {"ECANCELED", "operation canceled"},
        {"ENOKEY", "required key not available"}, {"EKEYEXPIRED", "key has expired"},
        {"EKEYREVOKED", "key has been revoked"}, {"EKEYREJECTED", "key was rejected by service"},
        {"EOWNERDEAD", "owner died"}, {"ENOTRECOVERABLE", "state not recoverable"},
        {"ERFKILL", "operation not possible due to RF-kill"}, {"EHWPOISON", "memory page has hardware error"},
    };

    public static String name(int errno) {
        return errno > 0 && errno < TABLE.length && TABLE[errno][0] != null ? TABLE[errno][0] : "errno " + errno;
    }

    public static String describe(int errno) {
        return errno > 0 && errno < TABLE.length && TABLE[errno][1] != null ? TABLE[errno][1] : "errno " + errno;
    }
}
