package io.jrunc.agent.api;

import java.util.regex.Pattern;

/**
 * Where the agent mounts a pod's volumes (Pod.AddVolume), so that the host can name the source of a
 * container's bind mount in the spec it builds before the VM boots, and the rule for their names: one
 * path component, so a name can never reach outside the volumes' directory.
 */
public final class Volumes {
    /** The directory in the agent's root under which each volume is mounted by its name. */
    public static final String DIR = "/run/jrunc/volumes";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    private Volumes() {
    }

    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** The volume's mount point in the guest. */
    public static String guestPath(String name) {
        if (!validName(name)) {
            throw new IllegalArgumentException("invalid volume name \"" + name + "\"");
        }
        return DIR + "/" + name;
    }
}
