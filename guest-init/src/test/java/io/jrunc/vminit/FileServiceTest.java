package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.pb.v1.CopyInRequest;
import io.jrunc.agent.api.pb.v1.CopyInWriteRequest;
import io.jrunc.agent.api.pb.v1.CopyOutReadRequest;
import io.jrunc.agent.api.pb.v1.CopyOutReadResponse;
import io.jrunc.agent.api.pb.v1.CopyOutRequest;
import io.jrunc.agent.api.pb.v1.CopyOutResponse;
import io.jrunc.agent.api.pb.v1.FileKind;
import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import io.jrunc.testsupport.Requirements;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Files service's sessions on the host, a temporary directory standing for a container's root:
 * a stream in chunks of 1 MiB in and out, a failure answered by the last call, and a copy cancelled or
 * abandoned half-way leaving neither the file nor its temporary.
 */
class FileServiceTest {
    static final int MIB = 1 << 20;

    @TempDir
    Path tmp;
    Path rootfs;
    FileService files;
    byte[] content;

    @BeforeAll
    static void asRoot() {
        Requirements.requireRoot("owners set with fchownat, as the agent (the guest's PID 1, root) sets them");
    }

    @BeforeEach
    void setUp() throws Exception {
        Path bundle = tmp.resolve("bundle");
        rootfs = Files.createDirectories(bundle.resolve("rootfs"));
        ContainerStore store = new ContainerStore();
        store.reserve("c");
        store.fill(new ContainerRecord("c", "serial", bundle, List.of()));
        files = new FileService(store);
        content = new byte[3 * MIB + 17];
        new Random(1).nextBytes(content);
    }

    byte[] fileStream() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out);
        w.write(TarEntry.file(".", 0640, 5, 6, 1_700_000_000L, 0, content.length), new ByteArrayInputStream(content));
        w.finish();
        return out.toByteArray();
    }

    String begin(String directory, String name) throws RpcException {
        return files.copyIn(CopyInRequest.newBuilder().setContainerId("c").setDirectory(directory).setName(name).build())
                .getSession();
    }

    void write(String session, byte[] data, int from, int to, boolean last) throws Exception {
        files.copyInWrite(CopyInWriteRequest.newBuilder().setSession(session)
                .setData(ByteString.copyFrom(data, from, to - from)).setLast(last).build());
    }

    void send(String session, byte[] stream) throws Exception {
        for (int at = 0; at < stream.length; at += MIB) {
            int end = Math.min(stream.length, at + MIB);
            write(session, stream, at, end, end == stream.length);
        }
    }

    List<Path> temporaries() throws IOException {
        try (Stream<Path> s = Files.list(rootfs)) { // names only: a worker may remove one meanwhile (every copy here is into /)
            return s.filter(p -> p.getFileName().toString().startsWith(".jrunc-cp-")).toList();
        }
    }

    void awaitNoTemporaries() throws Exception {
        for (int i = 0; i < 100 && !temporaries().isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aFileGoesInAndComesOutInChunks() throws Exception {
        send(begin("/", "f"), fileStream());
        assertArrayEquals(content, Files.readAllBytes(rootfs.resolve("f")));
        assertEquals(0, files.sessionCount());
        assertEquals(FileKind.FILE_KIND_REGULAR, files.fileStat("c", "/f").getKind());
        assertEquals(FileKind.FILE_KIND_ABSENT, files.fileStat("c", "/g").getKind());

        CopyOutResponse opened = files.copyOut(CopyOutRequest.newBuilder().setContainerId("c").setPath("/f").build());
        assertEquals(FileKind.FILE_KIND_REGULAR, opened.getKind());
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        int calls = 0;
        for (boolean eof = false; !eof; calls++) { // the last chunk comes with eof
            CopyOutReadResponse r = files.copyOutRead(CopyOutReadRequest.newBuilder()
                    .setSession(opened.getSession()).setMaxBytes(MIB).build());
            assertTrue(r.getData().size() <= MIB);
            r.getData().writeTo(stream);
            eof = r.getEof();
        }
        assertTrue(calls >= 4, "several chunks: " + calls);
        TarReader in = new TarReader(new ByteArrayInputStream(stream.toByteArray()));
        TarEntry e = in.next();
        assertEquals(".", e.name());
        assertEquals(0640, e.mode());
        assertEquals(5, e.uid());
        assertArrayEquals(content, in.content().readAllBytes());
        assertEquals(0, files.sessionCount());
    }

    @Test
    void aFailureIsTheLastCallsAnswerAndLeavesNothingHalfWritten() throws Exception {
        Files.createDirectory(rootfs.resolve("dir"));
        String session = begin("/", "dir");
        RpcException e = assertThrows(RpcException.class, () -> send(session, fileStream()));
        assertEquals(Code.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("cannot overwrite directory /dir"), e.getMessage());
        assertEquals(0, files.sessionCount());
        awaitNoTemporaries();
        RpcException missing = assertThrows(RpcException.class, () -> begin("/no/such", "f"));
        assertEquals(Code.NOT_FOUND, missing.code());
        RpcException unknown = assertThrows(RpcException.class, () -> files.fileStat("nosuch", "/"));
        assertEquals(Code.NOT_FOUND, unknown.code());
    }

    @Test
    void aCancelledOrAbandonedCopyLeavesNeitherFileNorTemporary() throws Exception {
        byte[] stream = fileStream();
        String cancelled = begin("/", "cancelled");
        write(cancelled, stream, 0, MIB, false);
        files.cancel(cancelled);
        awaitNoTemporaries();
        assertFalse(Files.exists(rootfs.resolve("cancelled")));

        String abandoned = begin("/", "abandoned");
        write(abandoned, stream, 0, MIB, false);
        files.expireIdle(System.nanoTime()); // not idle yet
        assertEquals(1, files.sessionCount());
        files.expireIdle(System.nanoTime() + FileService.IDLE_NANOS + 1);
        assertEquals(0, files.sessionCount());
        awaitNoTemporaries();
        assertFalse(Files.exists(rootfs.resolve("abandoned")));
        RpcException gone = assertThrows(RpcException.class, () -> write(abandoned, stream, MIB, stream.length, true));
        assertEquals(Code.NOT_FOUND, gone.code());
        assertTrue(Arrays.equals(stream, fileStream()));
    }
}
