/*
 * The system headers jrunc's generated bindings come from (glibc + Linux UAPI).
 * Generated with -D _GNU_SOURCE; see generate.sh and docs/bindings.md.
 * Order matters only where glibc and the kernel UAPI define the same thing:
 * glibc headers first, then the linux/ ones.
 */
#include <sched.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <termios.h>
#include <stdlib.h>
#include <ucontext.h>
#include <dirent.h>
#include <time.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/personality.h>
#include <sys/eventfd.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <linux/vm_sockets.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/ioprio.h>
#include <linux/random.h>
