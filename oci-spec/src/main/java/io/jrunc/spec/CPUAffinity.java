package io.jrunc.spec;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * CPU lists for an exec'd process before and after it joins the container's cgroup
 * (config.md, Linux Process execCPUAffinity), in cpuset list syntax such as {@code 0-3,7}.
 *
 * @param finalCpus the JSON member is {@code final}, a Java keyword.
 */
public record CPUAffinity(
        String initial,
        @JsonProperty("final") String finalCpus) {
}
