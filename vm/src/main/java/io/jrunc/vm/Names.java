package io.jrunc.vm;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Pod and container names (they become directory names under the state root, so none may hold a
 * slash or be "." or "..") and disk serials.
 */
public final class Names {
    /** podman's name rule; bounded so socket paths under the pod's directory stay under 108 bytes. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}");
    /** virtio-blk's serial is cut to 20 characters in the guest. */
    public static final int SERIAL_MAX = 20;

    private Names() {
    }

    /**
     * The name, if it keeps to the rule; else the one-line error naming {@code what}. Every pod or
     * container name goes through here before it becomes a path (StateRoot builds every path with it).
     */
    public static String require(String name, String what) throws VmException {
        if (!valid(name)) {
            throw new VmException("invalid " + what + " \"" + name + "\": names are 1-63 characters of [a-zA-Z0-9_.-], starting with a letter or digit");
        }
        return name;
    }

    public static boolean valid(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    public static String random(String prefix) {
        return prefix + HexFormat.of().formatHex(randomBytes(6));
    }

    /** A fresh disk serial: "jr" and 16 hex digits, 18 characters, within virtio-blk's 20. */
    public static String serial() {
        return "jr" + HexFormat.of().formatHex(randomBytes(8));
    }

    /**
     * The kernel's random bytes, read from /dev/urandom as SecureRandom's default source would read
     * them, without SecureRandom: its security providers' set-up cost every run and create about 14 ms.
     */
    private static byte[] randomBytes(int n) {
        try (FileInputStream in = new FileInputStream("/dev/urandom")) {
            byte[] b = in.readNBytes(n);
            if (b.length != n) {
                throw new IOException("short read");
            }
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("/dev/urandom: " + e.getMessage(), e);
        }
    }
}
