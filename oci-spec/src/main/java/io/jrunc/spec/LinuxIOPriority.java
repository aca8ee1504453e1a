package io.jrunc.spec;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * I/O scheduling class and level for ioprio_set(2) (config.md, Linux Process ioPriority).
 *
 * @param ioClass {@code IOPRIO_CLASS_RT}, {@code _BE} or {@code _IDLE}; the JSON member is {@code
 *     class}, a Java keyword.
 * @param priority 0 (highest) to 7 (lowest).
 */
public record LinuxIOPriority(
        @JsonProperty("class") String ioClass,
        Integer priority) {
}
