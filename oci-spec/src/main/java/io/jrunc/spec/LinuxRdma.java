package io.jrunc.spec;

/**
 * rdma controller limits for one device; at least one is required (config-linux.md, RDMA). Both are
 * uint32.
 */
public record LinuxRdma(
        Long hcaHandles,
        Long hcaObjects) {
}
