package io.jrunc.spec;

/** The runtime-spec versions this module reads and writes. */
public final class SpecVersion {

    /**
     * The version written into new documents ({@link DefaultSpec}, states) and reported as the supported
     * maximum. The model also carries the few members spec 1.3 added (netDevices, memoryPolicy, intelRdt
     * schemata/enableMonitoring) so such configs round-trip, but it does not claim 1.3.
     */
    public static final String CURRENT = "1.2.1";

    /** The oldest version accepted, as runc reports in {@code features}. */
    public static final String MINIMUM = "1.0.0";

    /** The major version jrunc reads: a config of another major is refused. */
    public static final int MAJOR = 1;

    private SpecVersion() {
    }

    /**
     * Why {@code version} is not an ociVersion jrunc takes, or null. The runtime-spec says ociVersion
     * MUST be SemVer 2.0.0 (MAJOR.MINOR.PATCH, optional -PRERELEASE and +BUILD, no leading zeros);
     * runc takes any string, jrunc refuses what the spec forbids (docs/ARCHITECTURE.md, "runc is the
     * contract"). Checked by hand: every create validates it, and a regex costs a cold JVM start-up.
     */
    public static String problem(String version) {
        int plus = version.indexOf('+');
        String build = plus < 0 ? null : version.substring(plus + 1);
        String rest = plus < 0 ? version : version.substring(0, plus);
        int dash = rest.indexOf('-');
        String pre = dash < 0 ? null : rest.substring(dash + 1);
        String core = dash < 0 ? rest : rest.substring(0, dash);
        String[] parts = core.split("\\.", -1);
        boolean ok = parts.length == 3 && numeric(parts[0]) && numeric(parts[1]) && numeric(parts[2])
                && (pre == null || identifiers(pre, true)) && (build == null || identifiers(build, false));
        if (!ok) {
            return "\"" + version + "\" is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, as the runtime-spec requires)";
        }
        if (!parts[0].equals(Integer.toString(MAJOR))) {
            return "major version " + parts[0] + " is not supported (jrunc reads " + MAJOR + ".x, up to " + CURRENT + ")";
        }
        return null;
    }

    /** A numeric identifier: digits, no leading zero. */
    private static boolean numeric(String s) {
        if (s.isEmpty() || (s.length() > 1 && s.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Dot-separated [0-9A-Za-z-]+; in a pre-release, an all-digit identifier has no leading zero. */
    private static boolean identifiers(String s, boolean preRelease) {
        for (String id : s.split("\\.", -1)) {
            if (id.isEmpty()) {
                return false;
            }
            boolean digits = true;
            for (int i = 0; i < id.length(); i++) {
                char c = id.charAt(i);
                boolean alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
                if (!alnum) {
                    return false;
                }
                digits &= c >= '0' && c <= '9';
            }
            if (preRelease && digits && id.length() > 1 && id.charAt(0) == '0') {
                return false;
            }
        }
        return true;
    }
}
