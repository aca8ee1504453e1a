package io.jrunc.spec;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads config.json, an exec process.json or a resources document into the records with hand-written
 * code on a token stream: {@link StrictTokens} first, Jackson's streaming parser when that declines or
 * anything fails. No databind, no reflection.
 *
 * <p>Why: every jrunc command is a fresh JVM, and databind's first read of {@link Spec} spends most of a
 * second introspecting some fifty record types before it parses a byte. This reader needs only
 * jackson-core, so {@link SpecLoader} costs about what tokenizing the file costs.
 *
 * <p>It accepts and rejects exactly what {@link Json#read(String, Class)} (the databind path, kept as the
 * reference) does, with the same messages and JSON paths: it walks the tokens in the same order, makes
 * the same parser calls, and sends parser failures through the same {@link ParseFailure}. Unknown members
 * are skipped, values of the wrong JSON type are errors, nulls inside lists and maps are errors, uint64
 * members keep values above {@link Long#MAX_VALUE} as their bit pattern, and a repeated member keeps its
 * last value. {@code SpecReaderEquivalenceTest} checks all of this against databind.
 *
 * <p>One deliberate difference: databind fails ("No fallback setter/field defined for creator property",
 * or "Should never call `set()` on setterless property" for a list) when a member repeats after every
 * component of its record has been seen, e.g. {@code {"limit":1,"limit":2}} for pids. Go, and so runc,
 * keeps the last value, and so does this reader.
 */
public final class SpecReader {

    private static final String UINT64_RANGE = "must be between 0 and 18446744073709551615, got ";
    private static final int UINT64_BITS = 64;

    /** What a list or map holds, or which document is read: one switch instead of a lambda per type. */
    enum Kind {
        SPEC, PROCESS, RESOURCES,
        STRING, INT64,
        MOUNT, HOOK, RLIMIT, ID_MAPPING, NAMESPACE, DEVICE, NET_DEVICE, TIME_OFFSET,
        DEVICE_CGROUP, HUGEPAGE_LIMIT, INTERFACE_PRIORITY, RDMA, WEIGHT_DEVICE, THROTTLE_DEVICE,
        SYSCALL, SECCOMP_ARG
    }

    private final Tokens parser;
    /** The jackson parser behind {@link #parser}, or null while {@link StrictTokens} reads. */
    private final JsonParser jackson;

    private SpecReader(Tokens parser, JsonParser jackson) {
        this.parser = parser;
        this.jackson = jackson;
    }

    /** Parses a config.json given as UTF-8; no validation (see {@link SpecLoader}). */
    public static Spec readSpec(byte[] json) throws SpecException {
        return (Spec) read(json, Kind.SPEC);
    }

    /** Parses a config.json given as text; no validation. */
    public static Spec readSpec(String json) throws SpecException {
        return (Spec) read(json, Kind.SPEC);
    }

    /** Parses a lone {@link Process} ({@code exec --process}) given as UTF-8; no validation. */
    public static Process readProcess(byte[] json) throws SpecException {
        return (Process) read(json, Kind.PROCESS);
    }

    /** Parses a lone {@link Process} given as text; no validation. */
    public static Process readProcess(String json) throws SpecException {
        return (Process) read(json, Kind.PROCESS);
    }

    /** Parses a {@link LinuxResources} document ({@code update --resources}) given as UTF-8. */
    public static LinuxResources readResources(byte[] json) throws SpecException {
        return (LinuxResources) read(json, Kind.RESOURCES);
    }

    /** Parses a {@link LinuxResources} document given as text. */
    public static LinuxResources readResources(String json) throws SpecException {
        return (LinuxResources) read(json, Kind.RESOURCES);
    }

    /**
     * The document read by {@link StrictTokens} when it takes it, else by jackson's parser, which also
     * words every error: a failure on the strict path only means "ask jackson".
     */
    private static Object read(Object json, Kind kind) throws SpecException {
        try {
            return readStrict(json, kind);
        } catch (SpecException | IOException | RuntimeException refused) {
            return readWithJackson(json, kind); // which accepts it or words the error
        }
    }

    /** The document as {@link StrictTokens} reads it; anything thrown means it declined. */
    static Object readStrict(Object json, Kind kind) throws SpecException, IOException {
        StrictTokens strict = json instanceof byte[] bytes ? StrictTokens.of(bytes) : StrictTokens.of((String) json);
        Object document = document(strict, null, kind);
        if (document == null) {
            throw StrictTokens.REFUSED;
        }
        return document;
    }

    /** The reference path: jackson-core's parser (tests compare the strict path with it). */
    static Object readWithJackson(Object json, Kind kind) throws SpecException {
        try (JsonParser parser = json instanceof byte[] bytes ? JsonFactories.GO.createParser(bytes)
                : JsonFactories.GO.createParser((String) json)) {
            return document(new Tokens.Jackson(parser), parser, kind);
        } catch (IOException e) {
            throw new SpecException("", "cannot read JSON: " + e.getMessage(), e);
        }
    }

    /** The same steps, in the same order, as {@link Json#read(String, Class)}. */
    private static Object document(Tokens parser, JsonParser jackson, Kind kind) throws SpecException, IOException {
        Object document;
        try {
            if (parser.nextToken() == null) {
                throw new SpecException("", "no JSON content");
            }
            document = new SpecReader(parser, jackson).value(kind);
            if (parser.nextToken() != null) {
                JsonLocation extra = jackson.currentTokenLocation();
                throw new SpecException("", "unexpected content after the JSON document at line "
                        + extra.getLineNr() + ", column " + extra.getColumnNr());
            }
        } catch (JacksonException e) {
            throw ParseFailure.describe(e, jackson);
        }
        if (document == null) {
            throw new SpecException("", "document is null, expected an object");
        }
        return document;
    }

    /** Reads the value at the current token. */
    private Object value(Kind kind) throws IOException, SpecException {
        return switch (kind) {
            case SPEC -> spec();
            case PROCESS -> process();
            case RESOURCES -> resources();
            case STRING -> string();
            case INT64 -> int64();
            case MOUNT -> mount();
            case HOOK -> hook();
            case RLIMIT -> rlimit();
            case ID_MAPPING -> idMapping();
            case NAMESPACE -> namespace();
            case DEVICE -> device();
            case NET_DEVICE -> netDevice();
            case TIME_OFFSET -> timeOffset();
            case DEVICE_CGROUP -> deviceCgroup();
            case HUGEPAGE_LIMIT -> hugepageLimit();
            case INTERFACE_PRIORITY -> interfacePriority();
            case RDMA -> rdma();
            case WEIGHT_DEVICE -> weightDevice();
            case THROTTLE_DEVICE -> throttleDevice();
            case SYSCALL -> syscall();
            case SECCOMP_ARG -> seccompArg();
        };
    }

    // ---- structure -------------------------------------------------------------------------------

    /** True at the start of an object, false at null; anything else is a type error. */
    private boolean object() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.START_OBJECT) {
            return true;
        }
        if (token == JsonToken.VALUE_NULL) {
            return false;
        }
        throw mismatch("object");
    }

    /** Moves to the next member's value and returns its name; null at the end of the object. */
    private String nextMember() throws IOException {
        if (parser.nextToken() == JsonToken.END_OBJECT) {
            return null;
        }
        String name = parser.currentName();
        parser.nextToken();
        return name;
    }

    /** Skips a member no record component is named after (the spec's extensibility rule). */
    private void unknown() throws IOException {
        parser.skipChildren();
    }

    @SuppressWarnings("unchecked")
    private <T> List<T> list(Kind kind) throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.START_ARRAY) {
            throw mismatch("array");
        }
        List<Object> items = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            if (parser.currentToken() == JsonToken.VALUE_NULL) {
                throw failure("must not be null");
            }
            items.add(value(kind));
        }
        return (List<T>) items;
    }

    @SuppressWarnings("unchecked")
    private <T> Map<String, T> map(Kind kind) throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Map<String, Object> entries = new LinkedHashMap<>();
        // nextFieldName, not nextToken: databind's map reading uses it, and for some malformed input the
        // parser words its message differently depending on which was called.
        for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
            if (parser.nextToken() == JsonToken.VALUE_NULL) {
                throw failure("must not be null");
            }
            entries.put(key, value(kind));
        }
        return (Map<String, T>) entries;
    }

    private List<String> strings() throws IOException, SpecException {
        return list(Kind.STRING);
    }

    // ---- scalars ---------------------------------------------------------------------------------

    private String string() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        throw mismatch("string");
    }

    private Boolean bool() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_TRUE) {
            return Boolean.TRUE;
        }
        if (token == JsonToken.VALUE_FALSE) {
            return Boolean.FALSE;
        }
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        throw mismatch("boolean");
    }

    /** An int32 or uint16; the parser reports values outside int's range, as databind lets it. */
    private Integer int32() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT) {
            return parser.getIntValue();
        }
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        throw mismatch("integer");
    }

    /** An int64 or uint32. */
    private Long int64() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT) {
            return parser.getLongValue();
        }
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        throw mismatch("integer");
    }

    /** A {@link Uint64}: [0, 2^64-1], the upper half kept as negative longs with the same bits. */
    private Long uint64() throws IOException, SpecException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT) {
            BigInteger value = parser.getBigIntegerValue();
            if (value.signum() < 0 || value.bitLength() > UINT64_BITS) {
                throw failure(UINT64_RANGE + value);
            }
            return value.longValue();
        }
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        throw mismatch("integer");
    }

    /**
     * A value of the wrong JSON type. A string's text is read first, as databind does to try coercions:
     * a malformed string (a raw newline, a bad escape) is then reported as malformed JSON, like there.
     */
    private SpecException mismatch(String expected) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            parser.getText();
        }
        return failure("expected " + expected + ", got " + ParseFailure.kind(token));
    }

    /** A problem with the value at the current token; the parser's position is its JSON path. */
    private SpecException failure(String problem) {
        if (jackson == null) {
            throw StrictTokens.REFUSED; // jackson's parser knows the path and words it
        }
        return new SpecException(ParseFailure.parserPath(jackson), problem);
    }

    // ---- config.md -------------------------------------------------------------------------------

    private Spec spec() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String ociVersion = null;
        Process process = null;
        Root root = null;
        String hostname = null;
        String domainname = null;
        List<Mount> mounts = null;
        Hooks hooks = null;
        Map<String, String> annotations = null;
        Linux linux = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "ociVersion" -> ociVersion = string();
                case "process" -> process = process();
                case "root" -> root = root();
                case "hostname" -> hostname = string();
                case "domainname" -> domainname = string();
                case "mounts" -> mounts = list(Kind.MOUNT);
                case "hooks" -> hooks = hooks();
                case "annotations" -> annotations = map(Kind.STRING);
                case "linux" -> linux = linux();
                default -> unknown();
            }
        }
        return new Spec(ociVersion, process, root, hostname, domainname, mounts, hooks, annotations, linux);
    }

    private Process process() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Process.Builder process = Process.builder();
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "terminal" -> process.terminal(bool());
                case "consoleSize" -> process.consoleSize(box());
                case "user" -> process.user(user());
                case "args" -> process.args(strings());
                case "commandLine" -> process.commandLine(string());
                case "env" -> process.env(strings());
                case "cwd" -> process.cwd(string());
                case "capabilities" -> process.capabilities(capabilities());
                case "rlimits" -> process.rlimits(list(Kind.RLIMIT));
                case "noNewPrivileges" -> process.noNewPrivileges(bool());
                case "apparmorProfile" -> process.apparmorProfile(string());
                case "oomScoreAdj" -> process.oomScoreAdj(int32());
                case "scheduler" -> process.scheduler(scheduler());
                case "selinuxLabel" -> process.selinuxLabel(string());
                case "ioPriority" -> process.ioPriority(ioPriority());
                case "execCPUAffinity" -> process.execCPUAffinity(cpuAffinity());
                default -> unknown();
            }
        }
        return process.build();
    }

    private Box box() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Integer height = null;
        Integer width = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "height" -> height = int32();
                case "width" -> width = int32();
                default -> unknown();
            }
        }
        return new Box(height, width);
    }

    private User user() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long uid = null;
        Long gid = null;
        Long umask = null;
        List<Long> additionalGids = null;
        String username = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "uid" -> uid = int64();
                case "gid" -> gid = int64();
                case "umask" -> umask = int64();
                case "additionalGids" -> additionalGids = list(Kind.INT64);
                case "username" -> username = string();
                default -> unknown();
            }
        }
        return new User(uid, gid, umask, additionalGids, username);
    }

    private LinuxCapabilities capabilities() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        List<String> bounding = null;
        List<String> effective = null;
        List<String> inheritable = null;
        List<String> permitted = null;
        List<String> ambient = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "bounding" -> bounding = strings();
                case "effective" -> effective = strings();
                case "inheritable" -> inheritable = strings();
                case "permitted" -> permitted = strings();
                case "ambient" -> ambient = strings();
                default -> unknown();
            }
        }
        return new LinuxCapabilities(bounding, effective, inheritable, permitted, ambient);
    }

    private POSIXRlimit rlimit() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String type = null;
        Long hard = null;
        Long soft = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "type" -> type = string();
                case "hard" -> hard = uint64();
                case "soft" -> soft = uint64();
                default -> unknown();
            }
        }
        return new POSIXRlimit(type, hard, soft);
    }

    private Scheduler scheduler() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String policy = null;
        Integer nice = null;
        Integer priority = null;
        List<String> flags = null;
        Long runtime = null;
        Long deadline = null;
        Long period = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "policy" -> policy = string();
                case "nice" -> nice = int32();
                case "priority" -> priority = int32();
                case "flags" -> flags = strings();
                case "runtime" -> runtime = uint64();
                case "deadline" -> deadline = uint64();
                case "period" -> period = uint64();
                default -> unknown();
            }
        }
        return new Scheduler(policy, nice, priority, flags, runtime, deadline, period);
    }

    private LinuxIOPriority ioPriority() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String ioClass = null;
        Integer priority = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "class" -> ioClass = string();
                case "priority" -> priority = int32();
                default -> unknown();
            }
        }
        return new LinuxIOPriority(ioClass, priority);
    }

    private CPUAffinity cpuAffinity() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String initial = null;
        String finalCpus = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "initial" -> initial = string();
                case "final" -> finalCpus = string();
                default -> unknown();
            }
        }
        return new CPUAffinity(initial, finalCpus);
    }

    private Root root() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String path = null;
        Boolean readonly = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "path" -> path = string();
                case "readonly" -> readonly = bool();
                default -> unknown();
            }
        }
        return new Root(path, readonly);
    }

    private Mount mount() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String destination = null;
        String type = null;
        String source = null;
        List<String> options = null;
        List<LinuxIDMapping> uidMappings = null;
        List<LinuxIDMapping> gidMappings = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "destination" -> destination = string();
                case "type" -> type = string();
                case "source" -> source = string();
                case "options" -> options = strings();
                case "uidMappings" -> uidMappings = list(Kind.ID_MAPPING);
                case "gidMappings" -> gidMappings = list(Kind.ID_MAPPING);
                default -> unknown();
            }
        }
        return new Mount(destination, type, source, options, uidMappings, gidMappings);
    }

    private Hooks hooks() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        List<Hook> prestart = null;
        List<Hook> createRuntime = null;
        List<Hook> createContainer = null;
        List<Hook> startContainer = null;
        List<Hook> poststart = null;
        List<Hook> poststop = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "prestart" -> prestart = list(Kind.HOOK);
                case "createRuntime" -> createRuntime = list(Kind.HOOK);
                case "createContainer" -> createContainer = list(Kind.HOOK);
                case "startContainer" -> startContainer = list(Kind.HOOK);
                case "poststart" -> poststart = list(Kind.HOOK);
                case "poststop" -> poststop = list(Kind.HOOK);
                default -> unknown();
            }
        }
        return new Hooks(prestart, createRuntime, createContainer, startContainer, poststart, poststop);
    }

    private Hook hook() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String path = null;
        List<String> args = null;
        List<String> env = null;
        Integer timeout = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "path" -> path = string();
                case "args" -> args = strings();
                case "env" -> env = strings();
                case "timeout" -> timeout = int32();
                default -> unknown();
            }
        }
        return new Hook(path, args, env, timeout);
    }

    // ---- config-linux.md -------------------------------------------------------------------------

    private Linux linux() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        List<LinuxIDMapping> uidMappings = null;
        List<LinuxIDMapping> gidMappings = null;
        Map<String, String> sysctl = null;
        LinuxResources resources = null;
        String cgroupsPath = null;
        List<LinuxNamespace> namespaces = null;
        List<LinuxDevice> devices = null;
        Map<String, LinuxNetDevice> netDevices = null;
        LinuxSeccomp seccomp = null;
        String rootfsPropagation = null;
        List<String> maskedPaths = null;
        List<String> readonlyPaths = null;
        String mountLabel = null;
        LinuxIntelRdt intelRdt = null;
        LinuxMemoryPolicy memoryPolicy = null;
        LinuxPersonality personality = null;
        Map<String, LinuxTimeOffset> timeOffsets = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "uidMappings" -> uidMappings = list(Kind.ID_MAPPING);
                case "gidMappings" -> gidMappings = list(Kind.ID_MAPPING);
                case "sysctl" -> sysctl = map(Kind.STRING);
                case "resources" -> resources = resources();
                case "cgroupsPath" -> cgroupsPath = string();
                case "namespaces" -> namespaces = list(Kind.NAMESPACE);
                case "devices" -> devices = list(Kind.DEVICE);
                case "netDevices" -> netDevices = map(Kind.NET_DEVICE);
                case "seccomp" -> seccomp = seccomp();
                case "rootfsPropagation" -> rootfsPropagation = string();
                case "maskedPaths" -> maskedPaths = strings();
                case "readonlyPaths" -> readonlyPaths = strings();
                case "mountLabel" -> mountLabel = string();
                case "intelRdt" -> intelRdt = intelRdt();
                case "memoryPolicy" -> memoryPolicy = memoryPolicy();
                case "personality" -> personality = personality();
                case "timeOffsets" -> timeOffsets = map(Kind.TIME_OFFSET);
                default -> unknown();
            }
        }
        return new Linux(uidMappings, gidMappings, sysctl, resources, cgroupsPath, namespaces, devices, netDevices,
                seccomp, rootfsPropagation, maskedPaths, readonlyPaths, mountLabel, intelRdt, memoryPolicy,
                personality, timeOffsets);
    }

    private LinuxIDMapping idMapping() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long containerID = null;
        Long hostID = null;
        Long size = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "containerID" -> containerID = int64();
                case "hostID" -> hostID = int64();
                case "size" -> size = int64();
                default -> unknown();
            }
        }
        return new LinuxIDMapping(containerID, hostID, size);
    }

    private LinuxNamespace namespace() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String type = null;
        String path = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "type" -> type = string();
                case "path" -> path = string();
                default -> unknown();
            }
        }
        return new LinuxNamespace(type, path);
    }

    private LinuxDevice device() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String path = null;
        String type = null;
        Long major = null;
        Long minor = null;
        Long fileMode = null;
        Long uid = null;
        Long gid = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "path" -> path = string();
                case "type" -> type = string();
                case "major" -> major = int64();
                case "minor" -> minor = int64();
                case "fileMode" -> fileMode = int64();
                case "uid" -> uid = int64();
                case "gid" -> gid = int64();
                default -> unknown();
            }
        }
        return new LinuxDevice(path, type, major, minor, fileMode, uid, gid);
    }

    private LinuxNetDevice netDevice() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String deviceName = null;
        for (String name; (name = nextMember()) != null; ) {
            if (name.equals("name")) {
                deviceName = string();
            } else {
                unknown();
            }
        }
        return new LinuxNetDevice(deviceName);
    }

    private LinuxTimeOffset timeOffset() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long secs = null;
        Long nanosecs = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "secs" -> secs = int64();
                case "nanosecs" -> nanosecs = int64();
                default -> unknown();
            }
        }
        return new LinuxTimeOffset(secs, nanosecs);
    }

    private LinuxResources resources() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        List<LinuxDeviceCgroup> devices = null;
        LinuxMemory memory = null;
        LinuxCPU cpu = null;
        LinuxPids pids = null;
        LinuxBlockIO blockIO = null;
        List<LinuxHugepageLimit> hugepageLimits = null;
        LinuxNetwork network = null;
        Map<String, LinuxRdma> rdma = null;
        Map<String, String> unified = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "devices" -> devices = list(Kind.DEVICE_CGROUP);
                case "memory" -> memory = memory();
                case "cpu" -> cpu = cpu();
                case "pids" -> pids = pids();
                case "blockIO" -> blockIO = blockIO();
                case "hugepageLimits" -> hugepageLimits = list(Kind.HUGEPAGE_LIMIT);
                case "network" -> network = network();
                case "rdma" -> rdma = map(Kind.RDMA);
                case "unified" -> unified = map(Kind.STRING);
                default -> unknown();
            }
        }
        return new LinuxResources(devices, memory, cpu, pids, blockIO, hugepageLimits, network, rdma, unified);
    }

    private LinuxDeviceCgroup deviceCgroup() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Boolean allow = null;
        String type = null;
        Long major = null;
        Long minor = null;
        String access = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "allow" -> allow = bool();
                case "type" -> type = string();
                case "major" -> major = int64();
                case "minor" -> minor = int64();
                case "access" -> access = string();
                default -> unknown();
            }
        }
        return new LinuxDeviceCgroup(allow, type, major, minor, access);
    }

    private LinuxMemory memory() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long limit = null;
        Long reservation = null;
        Long swap = null;
        Long kernel = null;
        Long kernelTCP = null;
        Long swappiness = null;
        Boolean disableOOMKiller = null;
        Boolean useHierarchy = null;
        Boolean checkBeforeUpdate = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "limit" -> limit = int64();
                case "reservation" -> reservation = int64();
                case "swap" -> swap = int64();
                case "kernel" -> kernel = int64();
                case "kernelTCP" -> kernelTCP = int64();
                case "swappiness" -> swappiness = uint64();
                case "disableOOMKiller" -> disableOOMKiller = bool();
                case "useHierarchy" -> useHierarchy = bool();
                case "checkBeforeUpdate" -> checkBeforeUpdate = bool();
                default -> unknown();
            }
        }
        return new LinuxMemory(limit, reservation, swap, kernel, kernelTCP, swappiness, disableOOMKiller,
                useHierarchy, checkBeforeUpdate);
    }

    private LinuxCPU cpu() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long shares = null;
        Long quota = null;
        Long burst = null;
        Long period = null;
        Long realtimeRuntime = null;
        Long realtimePeriod = null;
        String cpus = null;
        String mems = null;
        Long idle = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "shares" -> shares = uint64();
                case "quota" -> quota = int64();
                case "burst" -> burst = uint64();
                case "period" -> period = uint64();
                case "realtimeRuntime" -> realtimeRuntime = int64();
                case "realtimePeriod" -> realtimePeriod = uint64();
                case "cpus" -> cpus = string();
                case "mems" -> mems = string();
                case "idle" -> idle = int64();
                default -> unknown();
            }
        }
        return new LinuxCPU(shares, quota, burst, period, realtimeRuntime, realtimePeriod, cpus, mems, idle);
    }

    private LinuxPids pids() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long limit = null;
        for (String name; (name = nextMember()) != null; ) {
            if (name.equals("limit")) {
                limit = int64();
            } else {
                unknown();
            }
        }
        return new LinuxPids(limit);
    }

    private LinuxBlockIO blockIO() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Integer weight = null;
        Integer leafWeight = null;
        List<LinuxWeightDevice> weightDevice = null;
        List<LinuxThrottleDevice> throttleReadBpsDevice = null;
        List<LinuxThrottleDevice> throttleWriteBpsDevice = null;
        List<LinuxThrottleDevice> throttleReadIOPSDevice = null;
        List<LinuxThrottleDevice> throttleWriteIOPSDevice = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "weight" -> weight = int32();
                case "leafWeight" -> leafWeight = int32();
                case "weightDevice" -> weightDevice = list(Kind.WEIGHT_DEVICE);
                case "throttleReadBpsDevice" -> throttleReadBpsDevice = list(Kind.THROTTLE_DEVICE);
                case "throttleWriteBpsDevice" -> throttleWriteBpsDevice = list(Kind.THROTTLE_DEVICE);
                case "throttleReadIOPSDevice" -> throttleReadIOPSDevice = list(Kind.THROTTLE_DEVICE);
                case "throttleWriteIOPSDevice" -> throttleWriteIOPSDevice = list(Kind.THROTTLE_DEVICE);
                default -> unknown();
            }
        }
        return new LinuxBlockIO(weight, leafWeight, weightDevice, throttleReadBpsDevice, throttleWriteBpsDevice,
                throttleReadIOPSDevice, throttleWriteIOPSDevice);
    }

    private LinuxWeightDevice weightDevice() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long major = null;
        Long minor = null;
        Integer weight = null;
        Integer leafWeight = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "major" -> major = int64();
                case "minor" -> minor = int64();
                case "weight" -> weight = int32();
                case "leafWeight" -> leafWeight = int32();
                default -> unknown();
            }
        }
        return new LinuxWeightDevice(major, minor, weight, leafWeight);
    }

    private LinuxThrottleDevice throttleDevice() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long major = null;
        Long minor = null;
        Long rate = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "major" -> major = int64();
                case "minor" -> minor = int64();
                case "rate" -> rate = uint64();
                default -> unknown();
            }
        }
        return new LinuxThrottleDevice(major, minor, rate);
    }

    private LinuxHugepageLimit hugepageLimit() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String pageSize = null;
        Long limit = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "pageSize" -> pageSize = string();
                case "limit" -> limit = uint64();
                default -> unknown();
            }
        }
        return new LinuxHugepageLimit(pageSize, limit);
    }

    private LinuxNetwork network() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long classID = null;
        List<LinuxInterfacePriority> priorities = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "classID" -> classID = int64();
                case "priorities" -> priorities = list(Kind.INTERFACE_PRIORITY);
                default -> unknown();
            }
        }
        return new LinuxNetwork(classID, priorities);
    }

    private LinuxInterfacePriority interfacePriority() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String interfaceName = null;
        Long priority = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "name" -> interfaceName = string();
                case "priority" -> priority = int64();
                default -> unknown();
            }
        }
        return new LinuxInterfacePriority(interfaceName, priority);
    }

    private LinuxRdma rdma() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Long hcaHandles = null;
        Long hcaObjects = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "hcaHandles" -> hcaHandles = int64();
                case "hcaObjects" -> hcaObjects = int64();
                default -> unknown();
            }
        }
        return new LinuxRdma(hcaHandles, hcaObjects);
    }

    private LinuxSeccomp seccomp() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String defaultAction = null;
        Integer defaultErrnoRet = null;
        List<String> architectures = null;
        List<String> flags = null;
        String listenerPath = null;
        String listenerMetadata = null;
        List<LinuxSyscall> syscalls = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "defaultAction" -> defaultAction = string();
                case "defaultErrnoRet" -> defaultErrnoRet = int32();
                case "architectures" -> architectures = strings();
                case "flags" -> flags = strings();
                case "listenerPath" -> listenerPath = string();
                case "listenerMetadata" -> listenerMetadata = string();
                case "syscalls" -> syscalls = list(Kind.SYSCALL);
                default -> unknown();
            }
        }
        return new LinuxSeccomp(defaultAction, defaultErrnoRet, architectures, flags, listenerPath, listenerMetadata,
                syscalls);
    }

    private LinuxSyscall syscall() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        List<String> names = null;
        String action = null;
        Integer errnoRet = null;
        List<LinuxSeccompArg> args = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "names" -> names = strings();
                case "action" -> action = string();
                case "errnoRet" -> errnoRet = int32();
                case "args" -> args = list(Kind.SECCOMP_ARG);
                default -> unknown();
            }
        }
        return new LinuxSyscall(names, action, errnoRet, args);
    }

    private LinuxSeccompArg seccompArg() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        Integer index = null;
        Long value = null;
        Long valueTwo = null;
        String op = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "index" -> index = int32();
                case "value" -> value = uint64();
                case "valueTwo" -> valueTwo = uint64();
                case "op" -> op = string();
                default -> unknown();
            }
        }
        return new LinuxSeccompArg(index, value, valueTwo, op);
    }

    private LinuxIntelRdt intelRdt() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String closID = null;
        List<String> schemata = null;
        String l3CacheSchema = null;
        String memBwSchema = null;
        Boolean enableCMT = null;
        Boolean enableMBM = null;
        Boolean enableMonitoring = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "closID" -> closID = string();
                case "schemata" -> schemata = strings();
                case "l3CacheSchema" -> l3CacheSchema = string();
                case "memBwSchema" -> memBwSchema = string();
                case "enableCMT" -> enableCMT = bool();
                case "enableMBM" -> enableMBM = bool();
                case "enableMonitoring" -> enableMonitoring = bool();
                default -> unknown();
            }
        }
        return new LinuxIntelRdt(closID, schemata, l3CacheSchema, memBwSchema, enableCMT, enableMBM,
                enableMonitoring);
    }

    private LinuxMemoryPolicy memoryPolicy() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String mode = null;
        String nodes = null;
        List<String> flags = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "mode" -> mode = string();
                case "nodes" -> nodes = string();
                case "flags" -> flags = strings();
                default -> unknown();
            }
        }
        return new LinuxMemoryPolicy(mode, nodes, flags);
    }

    private LinuxPersonality personality() throws IOException, SpecException {
        if (!object()) {
            return null;
        }
        String domain = null;
        List<String> flags = null;
        for (String name; (name = nextMember()) != null; ) {
            switch (name) {
                case "domain" -> domain = string();
                case "flags" -> flags = strings();
                default -> unknown();
            }
        }
        return new LinuxPersonality(domain, flags);
    }
}
