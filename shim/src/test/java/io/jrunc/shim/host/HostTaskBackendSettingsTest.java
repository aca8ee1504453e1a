package io.jrunc.shim.host;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runtime options' [host] table: only root, an absolute path; anything else named and refused. */
class HostTaskBackendSettingsTest {
    private static final RecordedEvents EVENTS = new RecordedEvents();

    @Test
    void anUnknownSettingIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new HostTaskBackend(EVENTS, Map.of("rooot", "/run/x")));
        assertTrue(e.getMessage().startsWith("host.rooot: unknown setting"), e.getMessage());
    }

    @Test
    void aRootThatIsNotAnAbsoluteNormalPathIsRefused() {
        for (String root : new String[] {"run/x", "/run/../etc", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new HostTaskBackend(EVENTS, Map.of("root", root)));
            assertTrue(e.getMessage().startsWith("host.root: "), e.getMessage());
        }
    }
}
