package io.jrunc.spec;

import java.util.List;

/**
 * blkio/io controller settings (config-linux.md, Block IO). Weights are uint16.
 */
public record LinuxBlockIO(
        Integer weight,
        Integer leafWeight,
        List<LinuxWeightDevice> weightDevice,
        List<LinuxThrottleDevice> throttleReadBpsDevice,
        List<LinuxThrottleDevice> throttleWriteBpsDevice,
        List<LinuxThrottleDevice> throttleReadIOPSDevice,
        List<LinuxThrottleDevice> throttleWriteIOPSDevice) {

    public LinuxBlockIO {
        weightDevice = Frozen.list(weightDevice);
        throttleReadBpsDevice = Frozen.list(throttleReadBpsDevice);
        throttleWriteBpsDevice = Frozen.list(throttleWriteBpsDevice);
        throttleReadIOPSDevice = Frozen.list(throttleReadIOPSDevice);
        throttleWriteIOPSDevice = Frozen.list(throttleWriteIOPSDevice);
    }
}
