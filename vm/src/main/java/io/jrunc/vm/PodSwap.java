package io.jrunc.vm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.agent.api.pb.v1.SwapArea;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.state.PodRecord;
import java.util.List;

/** `pod inspect`'s swap: the area's size and use as the guest's /proc/swaps reports them. */
final class PodSwap {
    private PodSwap() {
    }

    /** Into {@code out}: the area the pod was given and, from the guest's Pod Stats, its device and use. */
    static void describe(ObjectNode out, PodRecord pod, List<SwapArea> guestAreas) {
        out.put("size", Sizes.format(pod.config().swapBytes())).put("sizeBytes", pod.config().swapBytes());
        for (SwapArea a : guestAreas) {
            if (a.getSerial().equals(SwapDisk.SERIAL)) {
                // the guest's figures: its area is the file less the header page, in KiB
                out.put("device", a.getDevice()).put("guestSizeBytes", a.getSizeBytes()).put("usedBytes", a.getUsedBytes());
                return;
            }
        }
        out.put("device", (String) null).put("note", "the guest lists no area with serial " + SwapDisk.SERIAL);
    }
}
