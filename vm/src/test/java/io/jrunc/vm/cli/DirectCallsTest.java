package io.jrunc.vm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The command lines {@link DirectCalls} parses without picocli give the command picocli would run,
 * with every field as picocli sets it; the ones it leaves to picocli are left (so picocli's parse and
 * messages decide). Each line is split on spaces; "_" stands for an empty argument.
 */
class DirectCallsTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "ls", "ps", "list --format json", "ls --format=table", "--root /tmp/r ls", "--root=/tmp/r --boot-timeout 30 ls",
            "--config /etc/x.toml inspect c1", "logs c1", "stats c1", "pod ls", "pod list --format json", "pod inspect p1",
            "pod start p1", "pod rm p1", "pod rm -f p1", "pod rm --force p1", "--root /tmp/r pod rm -f p1",
            "start c1", "rm c1", "rm -f c1", "rm --force c1",
            "run B", "run --rm B", "run --rm --pod p1 B true", "run --rm --pod=p1 /tmp/b sh -c exit_3",
            "run --name n1 -m 64m --cpus 0.5 --swap 32m B", "run --memory=1g --cpus=2 --layer-size 2g B",
            "run -i -t B sh", "run --interactive --tty B", "run --read-only --rootfs-share B",
            "run --network none -p 8080:80 -p 127.0.0.1:9090:90/udp B", "run --network=ns:/run/netns/x B",
            "run -v /srv:/data -v vol:/v:ro --volume=/a:/b B", "run --rm B --rm -it --pod q",
            "create B", "create --pod p1 --name c2 B echo hi", "create -i B", "--root /tmp/r run --rm B true",
            "--root /tmp/r monitor p1"})
    void parsesAsPicocliDoes(String line) throws Exception {
        String[] args = args(line);
        Main direct = new Main();
        Callable<Integer> command = DirectCalls.command(args, direct);
        assertNotNull(command, line + ": left to picocli");
        Main viaPicocli = new Main();
        CommandLine.ParseResult parsed = Main.commandLine(viaPicocli, args).parseArgs(args);
        while (parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        Object expected = parsed.commandSpec().userObject();
        assertEquals(expected.getClass(), command.getClass(), line);
        assertEquals(fields(expected), fields(command), line);
        assertEquals(fields(viaPicocli), fields(direct), line + ": jrunc-vm's own options");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "", "--help", "run", "run --help", "run -h B", "run -it B", "run -m64m B", "run --pod B", "run --pod", "run --pod= B",
            "run --pod -x B", "run --pod p --pod q B", "run --rm --rm B", "run --rm=true B", "run --cpus lots B", "run -- B",
            "run --unknown B", "run _", "create --rm B", "start", "start c1 c2", "start -x", "rm", "rm -f", "rm -f -f c1",
            "rm c1 c2", "rm --force=true c1", "stop c1", "exec c1 ls", "pod create p",
            "pod start", "pod start p1 p2", "pod start -x", "pod rm", "pod rm -f", "pod rm -t 3 p1", "pod rm -f -t 3 p1",
            "pod rm p1 p2", "pod rm -f -f p1", "pod stop p1", "--root", "--root a --root b ls",
            "--boot-timeout x ls", "ls --format", "inspect", "inspect -x", "monitor", "monitor p1 p2", "monitor -x"})
    void leavesTheRestToPicocli(String line) {
        assertNull(DirectCalls.command(args(line), new Main()), line);
    }

    private static String[] args(String line) {
        return line.isEmpty() ? new String[0]
                : java.util.Arrays.stream(line.split(" ")).map(a -> a.equals("_") ? "" : a.replace('_', ' ')).toArray(String[]::new);
    }

    /** The object's fields and their values, the parent command's and picocli's own set-up left out. */
    private static Map<String, Object> fields(Object o) throws IllegalAccessException {
        Map<String, Object> values = new LinkedHashMap<>();
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> c = o.getClass(); c != Object.class; c = c.getSuperclass()) {
            classes.add(c);
        }
        for (Class<?> c : classes) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType() == Main.class || f.getType() == PodCommand.class
                        || f.getType() == CommandLine.Model.CommandSpec.class || f.getName().equals("starter")) {
                    continue;
                }
                f.setAccessible(true);
                values.put(c.getSimpleName() + "." + f.getName(), f.get(o));
            }
        }
        return values;
    }
}
