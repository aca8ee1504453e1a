package io.jrunc.vm;

import java.security.SecureRandom;
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

    /** Made on first use: a SecureRandom's set-up (its providers) costs every call that only checks a name. */
    private static final class Random {
        static final SecureRandom SOURCE = new SecureRandom();
    }

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
        byte[] b = new byte[6];
        Random.SOURCE.nextBytes(b);
        return prefix + HexFormat.of().formatHex(b);
    }

    /** A fresh disk serial: "jr" and 16 hex digits, 18 characters, within virtio-blk's 20. */
    public static String serial() {
        byte[] b = new byte[8];
        Random.SOURCE.nextBytes(b);
        return "jr" + HexFormat.of().formatHex(b);
    }
}
