package io.flowtrace.cli.conntrack;

import io.flowtrace.core.conntrack.KernelFeatures;
import picocli.CommandLine.Option;

/**
 * The kernel settings and build options a ctnetlink message's size depends on (a picocli mixin of
 * {@code conntrack sizes}): which attributes the kernel puts in an event (docs/conntrack.md §2).
 * The defaults are {@link KernelFeatures#stock()}: NAT, mark, zones and the event timestamp built in, accounting and timestamps on.
 */
public final class KernelFeatureOptions {
    @Option(names = "--no-acct", description = "nf_conntrack_acct=0 (no counters on DESTROY, none reserved)")
    boolean noAcct;

    @Option(names = "--no-timestamp", description = "nf_conntrack_timestamp=0 (no start/stop, no event timestamp)")
    boolean noTimestamp;

    @Option(names = "--labels", description = "entries carry conntrack labels (nft ct label)")
    boolean labels;

    @Option(
            names = "--secctx-length",
            paramLabel = "N",
            defaultValue = "0",
            description = "LSM security context length incl. NUL (0: no SELinux/Smack)")
    int secctxLength;

    @Option(names = "--no-nat", description = "kernel built without CONFIG_NF_NAT")
    boolean noNat;

    @Option(names = "--no-mark", description = "kernel built without CONFIG_NF_CONNTRACK_MARK")
    boolean noMark;

    @Option(names = "--no-zones", description = "kernel built without CONFIG_NF_CONNTRACK_ZONES")
    boolean noZones;

    @Option(names = "--no-event-timestamp", description = "kernel older than CTA_TIMESTAMP_EVENT (type 27, 6.x)")
    boolean noEventTimestamp;

    KernelFeatures features() {
        return new KernelFeatures(
                !noAcct, !noTimestamp, labels, secctxLength, !noNat, !noMark, !noZones, !noEventTimestamp);
    }
}
