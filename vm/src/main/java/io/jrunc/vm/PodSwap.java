package io.jrunc.vm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vminit.protocol.AgentClient;
import io.jrunc.vminit.protocol.AgentMethods;
import io.jrunc.vminit.protocol.pb.v1.PodStatsRequest;
import io.jrunc.vminit.protocol.pb.v1.SwapArea;
import io.jrunc.vminit.protocol.ttrpc.RpcException;
import java.time.Duration;

/** `pod inspect`'s swap: the area's size and use as the guest's /proc/swaps reports them. */
final class PodSwap {
    private PodSwap() {
    }

    static void inUse(AgentClient monitor, ObjectNode out, PodRecord pod) throws RpcException {
        out.put("size", Sizes.format(pod.swapBytes())).put("sizeBytes", pod.swapBytes());
        for (SwapArea a : monitor.call(AgentMethods.Pod.STATS, PodStatsRequest.getDefaultInstance(),
                Duration.ofSeconds(30)).getSwapsList()) {
            if (a.getSerial().equals(SwapDisk.SERIAL)) {
                // the guest's figures: its area is the file less the header page, in KiB
                out.put("device", a.getDevice()).put("guestSizeBytes", a.getSizeBytes()).put("usedBytes", a.getUsedBytes());
                return;
            }
        }
        out.put("device", (String) null).put("note", "the guest lists no area with serial " + SwapDisk.SERIAL);
    }
}
