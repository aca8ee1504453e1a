package io.jrunc.tests.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * ctr's command lines against one private containerd and namespace, as the shim's end-to-end classes
 * use them: runs and execs with their fifos in {@code fifoDir}, a task's status from `ctr task ls`,
 * commands in the background with their output in {@code work}, and a shim's socket by containerd's
 * rule.
 */
record CtrClient(Path socket, String namespace, Path fifoDir, Path work, Command cmd) {

    List<String> ctr(String... args) {
        return Command.list(List.of("ctr", "--address", socket.toString(), "--namespace", namespace), args);
    }

    /** `ctr run --runtime RUNTIME`, {@code flags} before the image, then the id and the command. */
    List<String> run(String runtime, String id, List<String> flags, String... command) {
        List<String> c = ctr("run", "--runtime", runtime, "--fifo-dir", fifoDir.toString());
        c.addAll(flags);
        c.add(E2eHost.IMAGE);
        c.add(id);
        c.addAll(List.of(command));
        return c;
    }

    List<String> exec(String id, String execId, List<String> flags, String... command) {
        List<String> c = ctr("task", "exec", "--exec-id", execId, "--fifo-dir", fifoDir.toString());
        c.addAll(flags);
        c.add(id);
        c.addAll(List.of(command));
        return c;
    }

    /** The STATUS column of `ctr task ls` for {@code id}, or "absent". */
    String taskStatus(String id) {
        for (String line : cmd.run(ctr("task", "ls")).out().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals(id)) {
                return f[2];
            }
        }
        return "absent";
    }

    /** A client command in the background, its output to work/NAME.out and .err, for a kill from another. */
    Process background(List<String> command, String name) throws IOException {
        return new ProcessBuilder(command).redirectOutput(work.resolve(name + ".out").toFile())
                .redirectError(work.resolve(name + ".err").toFile())
                .redirectInput(Path.of("/dev/null").toFile()).start();
    }

    /** The socket of the shim of group {@code group} (a container's id when it has none), by containerd's rule. */
    Path shimSocket(String group) throws NoSuchAlgorithmException {
        String joined = socket + "/" + namespace + "/" + group;
        return Path.of("/run/containerd/s", HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(joined.getBytes(StandardCharsets.UTF_8))));
    }
}
