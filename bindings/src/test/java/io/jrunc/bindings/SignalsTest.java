package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.c.Libc;
import org.junit.jupiter.api.Test;

/** Signal names and numbers as runc's kill and kill(1) take them. */
class SignalsTest {
    @Test
    void namesInAnyCaseWithOrWithoutSig() {
        assertEquals(new Signals.Parsed.Signal(9), Signals.parse("KILL"));
        assertEquals(new Signals.Parsed.Signal(9), Signals.parse("SIGKILL"));
        assertEquals(new Signals.Parsed.Signal(9), Signals.parse("kill"));
        assertEquals(new Signals.Parsed.Signal(15), Signals.parse("sigterm"));
        assertEquals(new Signals.Parsed.Signal(17), Signals.parse("CLD"));
        assertEquals(new Signals.Parsed.Signal(29), Signals.parse("POLL"));
        assertEquals(new Signals.Parsed.Signal(31), Signals.parse("SYS"));
        assertEquals(new Signals.Parsed.Signal(28), Signals.parse("WINCH"));
    }

    @Test
    void numbersFromOneToSixtyFour() {
        assertEquals(new Signals.Parsed.Signal(1), Signals.parse("1"));
        assertEquals(new Signals.Parsed.Signal(64), Signals.parse("64"));
        assertEquals(new Signals.Parsed.OutOfRange("0"), Signals.parse("0"));
        assertEquals(new Signals.Parsed.OutOfRange("65"), Signals.parse("65"));
        assertEquals(new Signals.Parsed.OutOfRange("-5"), Signals.parse("-5"));
    }

    @Test
    void anythingElseIsAnUnknownName() {
        assertEquals(new Signals.Parsed.UnknownName("SIGNOPE"), Signals.parse("SIGNOPE"));
        assertEquals(new Signals.Parsed.UnknownName(""), Signals.parse(""));
        assertEquals(new Signals.Parsed.UnknownName("SIG"), Signals.parse("SIG"));
        assertEquals(new Signals.Parsed.UnknownName("RTMIN"), Signals.parse("RTMIN"));
    }

    /** Every name of the table against glibc's header, as jextract generated it. */
    @Test
    void theTableIsTheHeaders() throws ReflectiveOperationException {
        int checked = 0;
        for (var e : Signals.BY_NAME.entrySet()) {
            java.lang.reflect.Method constant;
            try {
                constant = Libc.class.getMethod("SIG" + e.getKey());
            } catch (NoSuchMethodException absent) {
                continue; // not among the generated constants
            }
            assertEquals((int) constant.invoke(null), e.getValue(), e.getKey());
            checked++;
        }
        assertTrue(checked >= 30, checked + " names checked");
    }

    @Test
    void namedConstantsAreTheTablesNumbers() {
        assertEquals(new Signals.Parsed.Signal(Signals.SIGKILL), Signals.parse("KILL"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGTERM), Signals.parse("TERM"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGSTOP), Signals.parse("STOP"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGCONT), Signals.parse("CONT"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGCHLD), Signals.parse("CHLD"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGHUP), Signals.parse("HUP"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGINT), Signals.parse("INT"));
        assertEquals(new Signals.Parsed.Signal(Signals.SIGQUIT), Signals.parse("QUIT"));
    }
}
