package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import org.junit.jupiter.api.Test;

/**
 * How a container's root is switched: pivot_root unless its create asks for no pivot (runc's
 * --no-pivot), whatever happened at boot. A root switch that failed at boot (the initramfs stays the
 * root, which pivot_root refuses) does not turn creates into chroots: they are refused with the reason.
 * A boot whose switch fails cannot be made on demand in a VM, hence the outcome given here.
 */
class RootSwitchTest {
    static final RootSwitch.Outcome SWITCHED = new RootSwitch.Outcome(true, null);
    static final RootSwitch.Outcome FAILED = new RootSwitch.Outcome(false, "mount / on /.root: operation not permitted");

    @Test
    void pivotRootUnlessTheCreateAsksForNoPivot() throws Exception {
        assertFalse(RootSwitch.noPivot(false, SWITCHED));
        assertTrue(RootSwitch.noPivot(true, SWITCHED));
    }

    @Test
    void aFailedRootSwitchRefusesCreatesThatDoNotAskSayingWhy() throws Exception {
        RpcException e = assertThrows(RpcException.class, () -> RootSwitch.noPivot(false, FAILED));
        assertEquals(Code.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("pivot_root is not possible") && e.getMessage().contains(FAILED.failure())
                && e.getMessage().contains("no_pivot"), e.getMessage());
        assertTrue(RootSwitch.noPivot(true, FAILED), "a create that asks gets move + chroot");
    }
}
