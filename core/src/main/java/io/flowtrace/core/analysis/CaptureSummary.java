package io.flowtrace.core.analysis;

import io.flowtrace.core.pcap.DecodeStatus;

/** What reading one capture amounted to: records read, how each decoded, errors recovered. */
public final class CaptureSummary {
    public long records;
    public long bytesRead;
    public final long[] byStatus = new long[DecodeStatus.values().length];
    public long formatErrors;
    /** Records a capture filter rejected (neither decoded nor counted in {@link #byStatus}). */
    public long filteredOut;
    /**
     * UDP datagrams from or to a port the analysis was asked to watch
     * ({@link CaptureAnalysis#watchingUdpPorts}): whether a pass over them (OpenVPN) has anything to find.
     */
    public long watchedUdp;
    /**
     * TCP segments with payload from or to one of those ports (OpenVPN over TCP): a pass over them
     * has something to find too.
     */
    public long watchedTcp;

    public long flows;
    public String format = "";
    /** Set when reading stopped on an unrecoverable error. */
    public String fatalError;

    public long count(DecodeStatus s) {
        return byStatus[s.ordinal()];
    }

    public long tcpPackets() {
        return count(DecodeStatus.TCP);
    }
}
