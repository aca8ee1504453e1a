package io.jrunc.runtime;

/**
 * A failure a caller sees: its message is printed and logged exactly as written, so the wording of the
 * lifecycle errors follows runc's libcontainer/error.go, which containerd and podman match on
 * ("does not exist", "not running", ...).
 */
public class ContainerException extends RuntimeException {
    public ContainerException(String message) {
        super(message);
    }

    public ContainerException(String message, Throwable cause) {
        super(message, cause);
    }

    public static ContainerException notExists() {
        return new ContainerException("container does not exist");
    }

    public static ContainerException exists() {
        return new ContainerException("container with given ID already exists");
    }

    public static ContainerException notRunning() {
        return new ContainerException("container not running");
    }

    public static ContainerException paused() {
        return new ContainerException("container paused");
    }
}
