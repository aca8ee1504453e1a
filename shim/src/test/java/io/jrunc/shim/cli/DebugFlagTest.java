package io.jrunc.shim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** containerd's -debug: the serving shim's debug lines reach its log (stderr's handlers), none without it. */
class DebugFlagTest {
    @Test
    void debugLinesAreLoggedOnlyWithTheFlag() throws Exception {
        Logger root = Logger.getLogger("");
        Level level = root.getLevel();
        List<String> seen = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (isLoggable(record)) {
                    seen.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setLevel(Level.INFO);
        root.addHandler(handler);
        try {
            root.setLevel(Level.INFO);
            System.Logger log = System.getLogger("io.jrunc.shim.TaskService");
            Main.logDebug(false);
            log.log(System.Logger.Level.DEBUG, "create c1");
            assertFalse(seen.contains("create c1"), seen.toString());
            Main.logDebug(true);
            assertTrue(log.isLoggable(System.Logger.Level.DEBUG));
            log.log(System.Logger.Level.DEBUG, "create c2");
            assertEquals(List.of("create c2"), seen);
        } finally {
            root.removeHandler(handler);
            root.setLevel(level);
            for (Handler h : root.getHandlers()) {
                h.setLevel(Level.INFO);
            }
        }
    }
}
