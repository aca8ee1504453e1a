package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link Bpf}: the {@code union bpf_attr} offsets, and load/attach/query/replace/detach against this
 * machine's kernel (root, a cgroup2 mount anywhere: a hybrid host's /sys/fs/cgroup/unified will do, a
 * device program attaches to any cgroup2 directory).
 */
class BpfTest {

    /**
     * jextract does not generate {@code union bpf_attr}, so nothing generated can check these. The
     * expected values were printed once by a scratch C program (gcc, {@code offsetof(union bpf_attr,
     * ...)} and {@code sizeof}, linux-libc-dev 6.1.187 on x86-64), not kept in the repository; this test
     * only stops them from drifting.
     */
    @Test
    void attrOffsetsAreTheOnesGccPrinted() {
        assertEquals(144, Bpf.ATTR_SIZE);
        // BPF_PROG_LOAD
        assertEquals(0, Bpf.ATTR_PROG_TYPE);
        assertEquals(4, Bpf.ATTR_INSN_CNT);
        assertEquals(8, Bpf.ATTR_INSNS);
        assertEquals(16, Bpf.ATTR_LICENSE);
        assertEquals(24, Bpf.ATTR_LOG_LEVEL);
        assertEquals(28, Bpf.ATTR_LOG_SIZE);
        assertEquals(32, Bpf.ATTR_LOG_BUF);
        assertEquals(48, Bpf.ATTR_PROG_NAME);
        // BPF_PROG_ATTACH / BPF_PROG_DETACH
        assertEquals(0, Bpf.ATTR_TARGET_FD);
        assertEquals(4, Bpf.ATTR_ATTACH_BPF_FD);
        assertEquals(8, Bpf.ATTR_ATTACH_TYPE);
        assertEquals(12, Bpf.ATTR_ATTACH_FLAGS);
        assertEquals(16, Bpf.ATTR_REPLACE_BPF_FD);
        // BPF_PROG_QUERY
        assertEquals(0, Bpf.ATTR_QUERY_TARGET_FD);
        assertEquals(4, Bpf.ATTR_QUERY_ATTACH_TYPE);
        assertEquals(8, Bpf.ATTR_QUERY_FLAGS);
        assertEquals(12, Bpf.ATTR_QUERY_ATTACH_FLAGS);
        assertEquals(16, Bpf.ATTR_QUERY_PROG_IDS);
        assertEquals(24, Bpf.ATTR_QUERY_PROG_CNT);
        // BPF_PROG_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD, struct bpf_prog_info
        assertEquals(0, Bpf.ATTR_PROG_ID);
        assertEquals(0, Bpf.ATTR_INFO_BPF_FD);
        assertEquals(4, Bpf.ATTR_INFO_LEN);
        assertEquals(8, Bpf.ATTR_INFO);
        assertEquals(232, Bpf.PROG_INFO_SIZE);
        assertEquals(0, Bpf.PROG_INFO_TYPE);
        assertEquals(4, Bpf.PROG_INFO_ID);
        assertEquals(64, Bpf.PROG_INFO_NAME);
    }

    /** {@code w0 = value; exit}: MOV|ALU|K to r0, then EXIT. */
    private static byte[] returning(int value) {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) (Bpf.BPF_ALU | Bpf.BPF_MOV | Bpf.BPF_K)).put((byte) 0).putShort((short) 0).putInt(value);
        b.put((byte) (Bpf.BPF_JMP | Bpf.BPF_EXIT)).put((byte) 0).putShort((short) 0).putInt(0);
        return b.array();
    }

    private static void requireRootAndCgroup2() throws Exception {
        Requirements.requireRoot("bpf(2) and a cgroup directory");
        HostLimitation.skipUnless(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the test programs are little-endian");
        HostLimitation.skipUnless(cgroup2Mount() != null, "no cgroup2 file system mounted (a cgroup v1-only host)");
    }

    /** The mount point of a cgroup2 file system from /proc/self/mountinfo, or null. */
    private static Path cgroup2Mount() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] halves = line.split(" - ", 2);
            if (halves.length == 2 && halves[1].startsWith("cgroup2 ")) {
                return Path.of(halves[0].split(" ")[4]);
            }
        }
        return null;
    }

    @Test
    void loadAttachQueryReplaceDetach() throws Exception {
        requireRootAndCgroup2();
        Path cgroup = cgroup2Mount().resolve("jrunc-bpf-test-" + UUID.randomUUID().toString().substring(0, 8));
        Files.createDirectory(cgroup);
        int dir = -1, allow = -1, deny = -1;
        try {
            dir = FileDescriptors.open(cgroup.toString(),
                    FileDescriptors.O_DIRECTORY | FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            // "Apache": the kernel checks the license only for GPL-only helpers, which this program does not call
            allow = Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, returning(1), "Apache", "jrunc_test");
            deny = Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, returning(0), "Apache", "jrunc_test_deny");
            Bpf.ProgramInfo info = Bpf.progInfo(allow);
            assertEquals(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, info.type());
            assertEquals("jrunc_test", info.name());

            assertEquals(List.of(), Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE).programIds());
            Bpf.progAttach(dir, allow, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI, 0);
            Bpf.Attached attached = Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE);
            assertEquals(List.of(info.id()), attached.programIds());
            assertEquals(Bpf.BPF_F_ALLOW_MULTI, attached.attachFlags());

            // the id leads back to the same program
            int again = Bpf.progGetFdById(info.id());
            try {
                assertEquals(info, Bpf.progInfo(again));
            } finally {
                FileDescriptors.close(again);
            }

            // atomic replacement (kernel 5.6+)
            Bpf.progAttach(dir, deny, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI | Bpf.BPF_F_REPLACE, allow);
            assertEquals(List.of(Bpf.progInfo(deny).id()), Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE).programIds());

            // two at once, then detach one by one
            Bpf.progAttach(dir, allow, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI, 0);
            assertEquals(2, Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE).programIds().size());
            Bpf.progDetach(dir, deny, Bpf.BPF_CGROUP_DEVICE);
            Bpf.progDetach(dir, allow, Bpf.BPF_CGROUP_DEVICE);
            assertEquals(List.of(), Bpf.progQuery(dir, Bpf.BPF_CGROUP_DEVICE).programIds());

            int dirFd = dir, allowFd = allow;
            ErrnoException notAttached = assertThrows(ErrnoException.class,
                    () -> Bpf.progDetach(dirFd, allowFd, Bpf.BPF_CGROUP_DEVICE));
            assertEquals(Errno.ENOENT, notAttached.errno(), notAttached.getMessage());
            assertTrue(notAttached.getMessage().startsWith("bpf BPF_PROG_DETACH"), notAttached.getMessage());
        } finally {
            FileDescriptors.closeQuietly(allow);
            FileDescriptors.closeQuietly(deny);
            FileDescriptors.closeQuietly(dir);
            Files.delete(cgroup); // also drops anything still attached
        }
    }

    @Test
    void aRefusedProgramCarriesTheVerifierLog() throws Exception {
        requireRootAndCgroup2();
        // "exit" alone: r0 is never written, which the verifier refuses
        byte[] exitOnly = {(byte) (Bpf.BPF_JMP | Bpf.BPF_EXIT), 0, 0, 0, 0, 0, 0, 0};
        Bpf.LoadException e = assertThrows(Bpf.LoadException.class,
                () -> Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, exitOnly, "Apache", "jrunc_bad"));
        assertEquals(Errno.EACCES, e.errno());
        assertTrue(e.log().contains("R0 !read_ok"), e.log());
        assertTrue(e.getMessage().startsWith("bpf BPF_PROG_LOAD jrunc_bad (1 instructions): permission denied (EACCES)"),
                e.getMessage());
    }

    @Test
    void refusesPartialInstructionsAndLongNames() {
        assertThrows(IllegalArgumentException.class,
                () -> Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, new byte[12], "Apache", "x"));
        assertThrows(IllegalArgumentException.class,
                () -> Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, returning(1), "Apache", "sixteen_chars_xx"));
    }
}
