package io.jrunc.spec;

/**
 * hugetlb limit for one page size (config-linux.md, Huge page limits).
 *
 * @param pageSize e.g. {@code 2MB}, {@code 1GB}.
 * @param limit bytes.
 */
public record LinuxHugepageLimit(
        String pageSize,
        @Uint64 Long limit) {
}
