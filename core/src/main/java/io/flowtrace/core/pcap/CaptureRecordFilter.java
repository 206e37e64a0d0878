package io.flowtrace.core.pcap;

/**
 * Which captured records an analysis reads, judged on the raw frame before any decoding, as
 * tcpdump's and tshark's capture filters are (the command line's {@code -f} compiles one with libpcap).
 */
@FunctionalInterface
public interface CaptureRecordFilter {
    /** Every record. */
    CaptureRecordFilter ALL = record -> true;

    /** True when {@code record} (valid only during the call) is to be analysed. */
    boolean accept(CaptureRecord record);
}
