// Used by scripts/bench-startup.sh: one step of a jrunc call, timed inside a fresh JVM. Compiled
// against build/lib/*.jar and run with the launcher's JVM flags, with and without its AOT cache.
// Prints "STEP MILLIS" where MILLIS is the time from main() to the end of the step; the script takes
// the JVM's own start-up from the wall time of the `empty` step. Not a test; nothing runs it but the
// script. docs/PERFORMANCE.md says what the steps show.
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.Processes;
import io.jrunc.spec.SpecLoader;
import java.nio.file.Path;

final class BenchStartup {
    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        String step = args[0];
        switch (step) {
            case "empty" -> { }
            // The command line: jrunc's parser and a command that does nothing here (list of a root
            // that does not exist), as io.jrunc.cli.Main.run does for every call.
            case "cli" -> io.jrunc.cli.Main.run("--root", "/nonexistent", "list", "--quiet");
            // The bundle's config.json through SpecLoader (the strict tokenizer and the hand-written
            // SpecReader, then validation), as create and run do.
            case "json" -> SpecLoader.load(Path.of(args[1]));
            // FFM: the first downcall (the shared shape's stub) and then the static initializers of
            // three facade classes, which link 14 libc functions, each a bound handle of that shape.
            case "ffm" -> {
                Processes.getpid();
                long t1 = System.nanoTime();
                Class.forName(Mounts.class.getName(), true, BenchStartup.class.getClassLoader());
                Class.forName(Namespaces.class.getName(), true, BenchStartup.class.getClassLoader());
                System.out.printf("ffm-first %.1f%nffm-more %.1f%n", (t1 - t0) / 1e6, (System.nanoTime() - t1) / 1e6);
            }
            default -> throw new IllegalArgumentException(step);
        }
        System.out.printf("%s %.1f%n", step, (System.nanoTime() - t0) / 1e6);
    }

}
