package io.jrunc.cli;

import java.util.List;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.EventJson;
import io.jrunc.runtime.Status;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class EventsCommand extends Subcommand {
    String interval = "5s";

    boolean stats;

    String id;

    private static final List<Flag> FLAGS = List.of(
            Flag.string("interval", "set the stats collection interval (default: 5s)"),
            Flag.bool("stats", "display the container's stats then exit"));

    @Override
    String name() {
        return "events";
    }

    @Override
    String description() {
        return "display container events such as OOM notifications, cpu, memory, and IO usage statistics";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        interval = args.string("interval", interval);
        stats = args.flag("stats");
        id = args.positional(0);
    }

    @Override
    public Integer call() throws InterruptedException {
        Duration every = duration(interval);
        if (stats) {
            try (Container c = Container.load(main.root, id)) {
                System.out.println(EventJson.stats(id, c.stats()));
            }
            return 0;
        }
        // Streams stats every interval and an "oom" event whenever the OOM counter grows, until the
        // container stops (runc reads OOM notifications; polling the counter gives the same events).
        // The container is loaded (and locked) for each poll only: holding its lock while streaming
        // would block start, kill, pause, update and delete for as long as a caller watches events.
        long ooms;
        try (Container c = Container.load(main.root, id)) {
            ooms = c.oomEvents().oom();
        }
        long nextStats = 0;
        while (true) {
            long now = System.nanoTime();
            boolean stopped;
            long seen;
            String statsLine = null;
            try (Container c = Container.load(main.root, id)) {
                stopped = c.status() == Status.STOPPED;
                // read after the status: an OOM kill that stopped the container is still reported
                seen = c.oomEvents().oom();
                if (!stopped && now >= nextStats) {
                    try {
                        statsLine = EventJson.stats(id, c.stats());
                    } catch (ContainerException e) {
                        stopped = true;
                    }
                    nextStats = now + every.toNanos();
                }
            } catch (ContainerException e) {
                break; // deleted meanwhile
            }
            for (; ooms < seen; ooms++) {
                System.out.println(EventJson.oom(id));
            }
            if (statsLine != null) {
                System.out.println(statsLine);
            }
            System.out.flush();
            if (stopped) {
                break;
            }
            Thread.sleep(Math.min(200, every.toMillis()));
        }
        return 0;
    }

    private static final Pattern GO_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    /** Go's time.ParseDuration for the forms callers use ("5s", "100ms", "1m30s"). */
    static Duration duration(String text) {
        Matcher m = GO_DURATION.matcher(text);
        double nanos = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            double n = Double.parseDouble(m.group(1));
            nanos += n * switch (m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            end = m.end();
        }
        if (end != text.length() || end == 0 || nanos <= 0) {
            throw new ContainerException("duration interval must be greater than 0");
        }
        return Duration.ofNanos((long) nanos);
    }
}
