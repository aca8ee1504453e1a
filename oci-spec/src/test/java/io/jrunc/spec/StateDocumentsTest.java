package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state, runc state, seccomp process state and features documents, as written. */
class StateDocumentsTest {

    @Test
    void ociStateIsWrittenInTheSpecsOrderWithoutAbsentMembers() throws SpecException {
        State created = new State("1.2.1", "web", ContainerStatus.CREATED, 4242, "/run/bundles/web",
                Map.of("z", "1", "a", "2"));
        State stopped = new State("1.2.1", "web", ContainerStatus.STOPPED, null, "/run/bundles/web", null);

        assertEquals("{\"ociVersion\":\"1.2.1\",\"id\":\"web\",\"status\":\"created\",\"pid\":4242,"
                + "\"bundle\":\"/run/bundles/web\",\"annotations\":{\"a\":\"2\",\"z\":\"1\"}}", Json.write(created));
        assertEquals("{\"ociVersion\":\"1.2.1\",\"id\":\"web\",\"status\":\"stopped\",\"bundle\":\"/run/bundles/web\"}",
                Json.write(stopped));
        assertEquals(created, Json.read(Json.write(created), State.class));
    }

    @Test
    void runcStateIsLaidOutAsRuncStatePrintsIt() throws SpecException {
        RuncState state = new RuncState("1.2.1", "web", 0, ContainerStatus.STOPPED, "/b", "/b/rootfs",
                Instant.parse("2024-05-01T10:00:00.500Z"), Map.of(), null);

        String printed = Json.writeIndented(state, Json.STATE_INDENT);

        assertEquals("""
                {
                  "ociVersion": "1.2.1",
                  "id": "web",
                  "pid": 0,
                  "status": "stopped",
                  "bundle": "/b",
                  "rootfs": "/b/rootfs",
                  "created": "2024-05-01T10:00:00.5Z",
                  "owner": ""
                }""", printed);
        assertEquals(state, Json.read(printed, RuncState.class));
    }

    @Test
    void creationTimesUseGosShortestFraction() throws SpecException {
        assertEquals("2024-05-01T10:00:00Z", GoTime.format(Instant.parse("2024-05-01T10:00:00Z")));
        assertEquals("2024-05-01T10:00:00.000001Z", GoTime.format(Instant.parse("2024-05-01T10:00:00.000001Z")));
        assertEquals("2024-05-01T10:00:00.123456789Z",
                GoTime.format(Instant.parse("2024-05-01T10:00:00.123456789Z")));
        RuncState offset = Json.read("{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"pid\":7,\"status\":\"paused\","
                + "\"bundle\":\"/b\",\"rootfs\":\"/r\",\"created\":\"2024-05-01T12:00:00.25+02:00\",\"owner\":\"root\"}",
                RuncState.class);
        assertEquals(Instant.parse("2024-05-01T10:00:00.25Z"), offset.created());
    }

    @Test
    void stateDocumentsRejectUnknownStatusesAndBadTimes() {
        assertEquals("status: invalid value \"frozen\"", assertThrows(SpecException.class, () -> Json.read(
                "{\"ociVersion\":\"1\",\"id\":\"x\",\"status\":\"frozen\",\"bundle\":\"/b\"}", State.class)).getMessage());
        assertEquals("created: invalid value \"yesterday\"", assertThrows(SpecException.class, () -> Json.read(
                "{\"id\":\"x\",\"status\":\"running\",\"created\":\"yesterday\"}", RuncState.class)).getMessage());
        assertEquals("status must be set", assertThrows(SpecException.class, () -> Json.read(
                "{\"id\":\"x\",\"created\":\"2024-01-01T00:00:00Z\"}", RuncState.class)).getMessage());
    }

    @Test
    void seccompListenerReceivesTheProcessStateWithTheFdNames() {
        ContainerProcessState sent = new ContainerProcessState("1.2.1", List.of(ContainerProcessState.SECCOMP_FD_NAME),
                99, "profile-a", new State("1.2.1", "web", ContainerStatus.CREATING, 99, "/b", null));

        assertEquals("{\"ociVersion\":\"1.2.1\",\"fds\":[\"seccompFd\"],\"pid\":99,\"metadata\":\"profile-a\","
                + "\"state\":{\"ociVersion\":\"1.2.1\",\"id\":\"web\",\"status\":\"creating\",\"pid\":99,\"bundle\":\"/b\"}}",
                Json.write(sent));
    }

    @Test
    void featuresAreWrittenAsRuncFeaturesPrintsThem() throws SpecException {
        Features features = new Features(SpecVersion.MINIMUM, SpecVersion.CURRENT, List.of("prestart", "poststop"),
                List.of(),
                new Features.Linux(List.of("pid", "user"), null,
                        new Features.Cgroup(false, true, false, false, null),
                        new Features.Seccomp(true, List.of("SCMP_ACT_ALLOW"), null, null, null, null),
                        new Features.Apparmor(false), new Features.Selinux(false),
                        new Features.IntelRdt(false, null, null),
                        new Features.MemoryPolicy(List.of("MPOL_BIND"), List.of()),
                        new Features.MountExtensions(new Features.IDMap(true)),
                        new Features.NetDevices(false)),
                Map.of("org.opencontainers.runc.version", "jrunc"),
                List.of("bundle", "org.systemd.property."));

        String printed = Json.writeFeatures(features);

        assertEquals("""
                {
                    "ociVersionMin": "1.0.0",
                    "ociVersionMax": "1.2.1",
                    "hooks": [
                        "prestart",
                        "poststop"
                    ],
                    "mountOptions": [],
                    "linux": {
                        "namespaces": [
                            "pid",
                            "user"
                        ],
                        "cgroup": {
                            "v1": false,
                            "v2": true,
                            "systemd": false,
                            "systemdUser": false
                        },
                        "seccomp": {
                            "enabled": true,
                            "actions": [
                                "SCMP_ACT_ALLOW"
                            ]
                        },
                        "apparmor": {
                            "enabled": false
                        },
                        "selinux": {
                            "enabled": false
                        },
                        "intelRdt": {
                            "enabled": false
                        },
                        "memoryPolicy": {
                            "modes": [
                                "MPOL_BIND"
                            ],
                            "flags": []
                        },
                        "mountExtensions": {
                            "idmap": {
                                "enabled": true
                            }
                        },
                        "netDevices": {
                            "enabled": false
                        }
                    },
                    "annotations": {
                        "org.opencontainers.runc.version": "jrunc"
                    },
                    "potentiallyUnsafeConfigAnnotations": [
                        "bundle",
                        "org.systemd.property."
                    ]
                }
                """, printed);
        assertEquals(features, Json.read(printed, Features.class));
    }
}
