package io.flowtrace.core.conntrack;

/**
 * What the kernel is configured to put into (and reserve for) conntrack events.
 *
 * <ul>
 *   <li>{@code acct}: sysctl net.netfilter.nf_conntrack_acct (NF_CT_EXT_ACCT on new entries):
 *       CTA_COUNTERS_* on DESTROY, and 56 B in ctnetlink_acct_size().</li>
 *   <li>{@code timestamp}: sysctl nf_conntrack_timestamp (NF_CT_EXT_TSTAMP): CTA_TIMESTAMP on DESTROY,
 *       28 B in ctnetlink_timestamp_size(), and it is what makes the 6.18 event timestamp non-zero
 *       (nf_ct_ecache_tstamp_new()).</li>
 *   <li>{@code labels}: the entry has NF_CT_EXT_LABELS (nft "ct label" in use): 20 B in ctnetlink_label_size().</li>
 *   <li>{@code secctxLength}: strlen+1 of the LSM context string for the entry's secmark, 0 when
 *       security_secid_to_secctx() fails (no SELinux/Smack: the case on this machine).</li>
 *   <li>{@code nat}, {@code mark}, {@code zones}: CONFIG_NF_NAT, CONFIG_NF_CONNTRACK_MARK,
 *       CONFIG_NF_CONNTRACK_ZONES: reserved in ctnetlink_nlmsg_size() whether used or not.</li>
 *   <li>{@code eventTimestamp}: the kernel has CTA_TIMESTAMP_EVENT (type 27) and
 *       CONFIG_NF_CONNTRACK_TIMESTAMP: the estimate always reserves 12 B for it.</li>
 * </ul>
 */
public record KernelFeatures(
        boolean acct,
        boolean timestamp,
        boolean labels,
        int secctxLength,
        boolean nat,
        boolean mark,
        boolean zones,
        boolean eventTimestamp) {

    /** A stock distribution kernel (6.18, NAT/mark/zones/timestamp built in) with acct and timestamps on. */
    public static KernelFeatures stock() {
        return new KernelFeatures(true, true, false, 0, true, true, true, true);
    }

    public KernelFeatures withAcct(boolean v) {
        return new KernelFeatures(v, timestamp, labels, secctxLength, nat, mark, zones, eventTimestamp);
    }

    public KernelFeatures withTimestamp(boolean v) {
        return new KernelFeatures(acct, v, labels, secctxLength, nat, mark, zones, eventTimestamp);
    }

    public KernelFeatures withLabels(boolean v) {
        return new KernelFeatures(acct, timestamp, v, secctxLength, nat, mark, zones, eventTimestamp);
    }

    public KernelFeatures withEventTimestamp(boolean v) {
        return new KernelFeatures(acct, timestamp, labels, secctxLength, nat, mark, zones, v);
    }
}
