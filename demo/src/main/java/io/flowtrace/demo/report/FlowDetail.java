package io.flowtrace.demo.report;

import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Per-packet and per-round detail of one flow, which the sink tables do not hold: the flow's
 * packets read again from its capture file (time-sequence graph) and core's offline analyser run
 * again over that file with an event sink (RTT rounds with their flight, slow-start exit,
 * retransmissions). The flow is identified by the row the job wrote (vantage, client, server,
 * instance), so it is the same flow.
 */
final class FlowDetail {
    final List<double[]> data = new ArrayList<>();      // {seconds, relative seq of the segment's first byte}
    final List<double[]> acks = new ArrayList<>();      // {seconds, relative cumulative ACK}
    final List<TcpFlowEvent.Retransmission> retransmissions = new ArrayList<>();
    final List<TcpFlowEvent.Round> rounds = new ArrayList<>();
    TcpFlowEvent.SlowStartExit exit;
    long originNanos = -1;

    private FlowDetail() {
    }

    /**
     * @param senderIsClient the direction drawn: the side that sent more data
     */
    static FlowDetail read(Path capture, String agentId, String client, String server, long instance,
            long firstSeenUs, long lastSeenUs, boolean senderIsClient) throws Exception {
        FlowDetail d = new FlowDetail();
        TcpEventSink sink = e -> {
            if (e.fromClient() != senderIsClient) {
                return;
            }
            if (e instanceof TcpFlowEvent.Retransmission r) {
                d.retransmissions.add(r);
            } else if (e instanceof TcpFlowEvent.Round r) {
                d.rounds.add(r);
            } else if (e instanceof TcpFlowEvent.SlowStartExit x) {
                d.exit = x;
            }
        };
        try (InputStream in = Files.newInputStream(capture)) {
            new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint(agentId, "if" + iface)).run(in, (key, inst, flow) -> { },
                    (key, inst) -> inst == instance && matches(key.low(), key.high(), client, server) ? sink : TcpEventSink.NONE,
                    error -> { }, records -> { });
        }
        String sender = senderIsClient ? client : server;
        String receiver = senderIsClient ? server : client;
        long isn = -1;
        try (InputStream in = Files.newInputStream(capture); CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                long us = Math.floorDiv(p.timestampNanos, 1000);
                if (us < firstSeenUs || us > lastSeenUs) {
                    continue;
                }
                String src = endpoint(p.srcAddr, p.addrLength, p.srcPort);
                String dst = endpoint(p.dstAddr, p.addrLength, p.dstPort);
                if (d.originNanos < 0 && (src.equals(sender) || src.equals(receiver)) && (dst.equals(sender) || dst.equals(receiver))) {
                    d.originNanos = p.timestampNanos;
                }
                if (src.equals(sender) && dst.equals(receiver)) {
                    if (isn < 0) {
                        isn = (p.flags & DecodedPacket.SYN) != 0 ? p.seq : (p.seq - 1) & 0xffffffffL;
                    }
                    if (p.payloadLength > 0) {
                        d.data.add(new double[] {seconds(d, p.timestampNanos), (p.seq - isn) & 0xffffffffL});
                    }
                } else if (src.equals(receiver) && dst.equals(sender) && isn >= 0 && (p.flags & DecodedPacket.ACK) != 0) {
                    d.acks.add(new double[] {seconds(d, p.timestampNanos), (p.ack - isn) & 0xffffffffL});
                }
            }
        }
        return d;
    }

    double seconds(long nanos) {
        return (nanos - originNanos) / 1e9;
    }

    private static double seconds(FlowDetail d, long nanos) {
        return d.seconds(nanos);
    }

    private static boolean matches(Endpoint a, Endpoint b, String client, String server) {
        String x = a.toString();
        String y = b.toString();
        return (x.equals(client) && y.equals(server)) || (x.equals(server) && y.equals(client));
    }

    private static String endpoint(byte[] addr, int length, int port) {
        return new Endpoint(Arrays.copyOf(addr, length), port).toString();
    }
}
