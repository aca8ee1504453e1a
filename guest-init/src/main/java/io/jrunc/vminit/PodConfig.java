package io.jrunc.vminit;

/** What Configure set that containers take from the pod (hostname); volatile: any thread reads it. */
final class PodConfig {
    volatile String hostname = "";
}
