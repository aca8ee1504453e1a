package io.jrunc.spec;

/**
 * A namespace to create, or to join when {@code path} is set (config-linux.md, Namespaces).
 *
 * @param type see {@link NamespaceType}; kept as text so unknown types reach the validator.
 */
public record LinuxNamespace(
        String type,
        String path) {
}
