package io.flowtrace.cli.analyze;

import io.flowtrace.core.analysis.CaptureSummary;
import io.flowtrace.core.pcap.DecodeStatus;
import java.util.Locale;

/**
 * The one line {@code analyze} prints on stderr after each capture: format, records by decode
 * status, flows (and how many matched --host/--port), format errors, and the time from opening the
 * capture to the last flow written with the packets/s it makes (bench/compare-peers.sh reads it).
 */
public final class SummaryLine {
    private SummaryLine() {}

    /**
     * @param bpf the -f expression, or null
     * @param filter " --host X --port N" as given, or "" when neither was
     * @param matched flows that passed the filter, or -1 when nothing filters flows (--services)
     */
    static String of(
            String file, CaptureSummary s, String bpf, String filter, long flows, long matched, double seconds) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "flowtrace analyze: %s: %s; %,d records", file, s.format, s.records));
        if (bpf != null) {
            b.append(String.format(Locale.ROOT, ", %,d matched -f '%s'", s.records - s.filteredOut, bpf));
        }
        b.append(String.format(Locale.ROOT, ", %,d TCP", s.tcpPackets()));
        for (DecodeStatus st : DecodeStatus.values()) {
            if (st != DecodeStatus.TCP && s.count(st) > 0) {
                b.append(String.format(
                        Locale.ROOT,
                        ", %,d %s",
                        s.count(st),
                        st.name().toLowerCase(Locale.ROOT).replace('_', ' ')));
            }
        }
        if (filter.isEmpty() || matched < 0) {
            b.append(String.format(Locale.ROOT, "; %,d flows", flows));
        } else {
            b.append(String.format(Locale.ROOT, "; %,d of %,d flows matched%s", matched, flows, filter));
        }
        long formatErrors = s.formatErrors + (s.fatalError != null ? 1 : 0);
        b.append(String.format(
                Locale.ROOT,
                "; %,d format error%s; %.2f s (%,.0f packets/s)",
                formatErrors,
                formatErrors == 1 ? "" : "s",
                seconds,
                seconds > 0 ? s.records / seconds : 0.0));
        return b.toString();
    }

    /** " --host X --port N" as the user gave them, for "0 of 240 flows matched --port 80". */
    static String filterText(String host, Integer port) {
        StringBuilder b = new StringBuilder();
        if (host != null) {
            b.append(" --host ").append(host);
        }
        if (port != null) {
            b.append(" --port ").append(port);
        }
        return b.toString();
    }
}
