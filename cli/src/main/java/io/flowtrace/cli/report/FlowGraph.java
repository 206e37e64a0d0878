package io.flowtrace.cli.report;

import io.flowtrace.cli.capture.CaptureCompression;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the interactive graphs of one flow direction need, which the flow report does not hold: every
 * data segment (time, relative sequence number, retransmission class), every ACK of the receiver
 * (cumulative ACK, advertised window end, SACK blocks), bytes in flight, and core's RTT rounds. Read
 * in two more passes over the capture file: core's analyser with an event sink for the flow
 * (retransmission classes and rounds), then the packets themselves.
 */
public final class FlowGraph {
    /** The flow to draw: its identity from the first pass and the direction that carried the data. */
    public record Selection(
            FlowKey key,
            long instance,
            Endpoint client,
            Endpoint server,
            long firstSeenNanos,
            long lastSeenNanos,
            boolean senderIsClient,
            String title) {}

    final Selection flow;
    long originNanos = -1;
    // Per packet in primitive columns (a flow of 10^6 packets in ≈ 40 MB, not boxed rows).
    /** Data segments: capture time (ns), relative sequence number, bytes in flight after it. */
    final LongColumn segmentNanos = new LongColumn();

    final LongColumn segmentSeq = new LongColumn();
    final LongColumn segmentFlight = new LongColumn();
    /** The segments that were retransmissions (indexes into the segment columns) and their class ordinals. */
    final LongColumn retransmitted = new LongColumn();

    final LongColumn retransmittedClass = new LongColumn();
    /** The receiver's ACKs: capture time (ns), relative cumulative ACK, advertised window end (ACK + window). */
    final LongColumn ackNanos = new LongColumn();

    final LongColumn ackSeq = new LongColumn();
    final LongColumn ackWindowEnd = new LongColumn();
    /** SACK blocks: time of the ACK that carried them (ns), relative left and right edges. */
    final LongColumn sackNanos = new LongColumn();

    final LongColumn sackLeft = new LongColumn();
    final LongColumn sackRight = new LongColumn();
    final List<double[]> rounds = new ArrayList<>(); // {ns, cwnd bytes, min RTT ms}
    double slowStartExitSeconds = Double.NaN;
    private final Map<Long, Map<Long, Integer>> retransmissionClass = new HashMap<>(); // time → seq → class

    private FlowGraph(Selection flow) {
        this.flow = flow;
    }

    /** A flow named as the sink tables name it: vantage, "ip:port" of client and server, instance id. */
    public record FlowId(String vantage, String client, String server, long instance, String title) {}

    /**
     * The selections of the flows {@code wanted} names, as core's analysis of {@code capture} sees
     * them (the drawn direction: the side that sent more data), in the order of {@code wanted};
     * flows the capture does not have are left out.
     */
    public static List<Selection> find(Path capture, String agentId, List<FlowId> wanted) throws IOException {
        Selection[] found = new Selection[wanted.size()];
        try (InputStream in = CaptureCompression.open(Files.newInputStream(capture))) {
            new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint(agentId, "if" + iface))
                    .run(
                            in,
                            (key, instance, f) -> {
                                for (int i = 0; i < found.length; i++) {
                                    FlowId w = wanted.get(i);
                                    if (w.instance() == instance
                                            && w.vantage().equals(key.vantage().toString())
                                            && w.client().equals(f.client().toString())
                                            && w.server().equals(f.server().toString())) {
                                        boolean senderIsClient =
                                                f.clientToServer().uniqueBytes >= f.serverToClient().uniqueBytes;
                                        found[i] = new Selection(
                                                key,
                                                instance,
                                                f.client(),
                                                f.server(),
                                                f.firstSeenNanos(),
                                                f.lastSeenNanos(),
                                                senderIsClient,
                                                w.title());
                                    }
                                }
                            },
                            TcpEventSinkFactory.NONE,
                            error -> {},
                            records -> {});
        }
        List<Selection> out = new ArrayList<>();
        for (Selection s : found) {
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /** The graphs of {@code selections}, from the records of {@code capture} that {@code filter} accepts. */
    public static List<FlowGraph> read(
            Path capture, String agentId, List<Selection> selections, CaptureRecordFilter filter) throws IOException {
        List<FlowGraph> graphs = new ArrayList<>();
        for (Selection s : selections) {
            graphs.add(new FlowGraph(s));
        }
        try (InputStream in = CaptureCompression.open(Files.newInputStream(capture))) {
            new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint(agentId, "if" + iface))
                    .run(
                            in,
                            filter,
                            (k, i, f) -> {},
                            (key, instance) -> {
                                for (FlowGraph g : graphs) {
                                    if (g.flow.key().equals(key) && g.flow.instance() == instance) {
                                        return g::onEvent;
                                    }
                                }
                                return TcpEventSink.NONE;
                            },
                            error -> {},
                            records -> {});
        }
        try (InputStream in = CaptureCompression.open(Files.newInputStream(capture));
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (reader.next(rec)) {
                if (!filter.accept(rec) || decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                for (FlowGraph g : graphs) {
                    g.onPacket(p);
                }
            }
        } catch (CaptureFormatException e) {
            // the first pass reported it; the graphs show what was readable
        }
        return graphs;
    }

    /** Intervals of the throughput graph: this many over the flow's ACKs, each at least 1 ms. */
    static final int THROUGHPUT_INTERVALS = 100;

    private static final long MIN_INTERVAL_NANOS = 1_000_000;

    /**
     * Throughput over time as the receiver acknowledged it (Wireshark's TCP Stream Graphs,
     * "Throughput", counts segments; this counts what the cumulative ACK newly covers, so a
     * retransmission is not counted twice): {@code ackedBytes[i]} is covered in the interval from
     * {@code firstNanos + i * intervalNanos}. The intervals add up to the highest ACK minus the first.
     */
    public record Throughput(long firstNanos, long intervalNanos, long[] ackedBytes) {}

    Throughput throughput() {
        int n = ackNanos.size();
        if (n == 0) {
            return new Throughput(originNanos, MIN_INTERVAL_NANOS, new long[0]);
        }
        long first = ackNanos.get(0);
        long span = ackNanos.get(n - 1) - first;
        long interval = Math.max(MIN_INTERVAL_NANOS, (span + THROUGHPUT_INTERVALS - 1) / THROUGHPUT_INTERVALS);
        long[] bytes = new long[(int) (span / interval) + 1];
        long highest = ackSeq.get(0);
        for (int i = 0; i < n; i++) {
            long a = ackSeq.get(i);
            if (a > highest) {
                bytes[(int) ((ackNanos.get(i) - first) / interval)] += a - highest;
                highest = a;
            }
        }
        return new Throughput(first, interval, bytes);
    }

    private void onEvent(TcpFlowEvent e) {
        if (e.fromClient() != flow.senderIsClient()) {
            return;
        }
        if (e instanceof TcpFlowEvent.Retransmission r) {
            retransmissionClass
                    .computeIfAbsent(r.timeNanos(), t -> new HashMap<>())
                    .put(r.seq(), r.retransmissionClass().ordinal());
        } else if (e instanceof TcpFlowEvent.Round r) {
            rounds.add(new double[] {
                r.timeNanos(), r.flightBytes(), r.minRttNanos() < 0 ? Double.NaN : r.minRttNanos() / 1e6
            });
        } else if (e instanceof TcpFlowEvent.SlowStartExit x) {
            slowStartExitSeconds = x.timeNanos();
        }
    }

    // Per-direction state of the packet pass.
    private long isn = -1;
    private int senderScale = -1;
    private int receiverScale = -1;
    private long highestSent;
    private long lastAck;

    private void onPacket(DecodedPacket p) {
        if (p.timestampNanos < flow.firstSeenNanos() || p.timestampNanos > flow.lastSeenNanos()) {
            return;
        }
        Endpoint sender = flow.senderIsClient() ? flow.client() : flow.server();
        Endpoint receiver = flow.senderIsClient() ? flow.server() : flow.client();
        boolean fromSender =
                is(p.srcAddr, p.addrLength, p.srcPort, sender) && is(p.dstAddr, p.addrLength, p.dstPort, receiver);
        boolean fromReceiver = !fromSender
                && is(p.srcAddr, p.addrLength, p.srcPort, receiver)
                && is(p.dstAddr, p.addrLength, p.dstPort, sender);
        if (!fromSender && !fromReceiver) {
            return;
        }
        if (originNanos < 0) {
            originNanos = p.timestampNanos;
        }
        boolean syn = (p.flags & DecodedPacket.SYN) != 0;
        if (fromSender) {
            onSegment(p, syn);
            return;
        }
        if (syn) {
            receiverScale = p.windowScale;
        }
        if (isn < 0 || (p.flags & DecodedPacket.ACK) == 0) {
            return;
        }
        long ack = (p.ack - isn) & 0xffffffffL;
        if (ack > (1L << 31) && lastAck < (1L << 30)) {
            return; // an ACK from before our ISN (a stray segment): not on this graph
        }
        lastAck = Math.max(lastAck, ack);
        boolean scaled = !syn && senderScale >= 0 && receiverScale >= 0;
        long window = scaled ? (long) p.window << Math.min(receiverScale, 14) : p.window; // RFC 7323 §2.3
        ackNanos.add(p.timestampNanos);
        ackSeq.add(ack);
        ackWindowEnd.add(ack + window);
        for (int i = 0; i < p.sackCount; i++) {
            sackNanos.add(p.timestampNanos);
            sackLeft.add((p.sackLeft[i] - isn) & 0xffffffffL);
            sackRight.add((p.sackRight[i] - isn) & 0xffffffffL);
        }
    }

    private void onSegment(DecodedPacket p, boolean syn) {
        if (syn) {
            senderScale = p.windowScale;
        }
        if (isn < 0) {
            isn = syn ? p.seq : (p.seq - 1) & 0xffffffffL;
        }
        if (p.payloadLength > 0) {
            long seq = (p.seq - isn) & 0xffffffffL;
            highestSent = Math.max(highestSent, seq + p.payloadLength);
            Map<Long, Integer> at = retransmissionClass.get(p.timestampNanos);
            Integer cls = at == null ? null : at.get(seq);
            if (cls != null) {
                retransmitted.add(segmentNanos.size());
                retransmittedClass.add(cls);
            }
            segmentNanos.add(p.timestampNanos);
            segmentSeq.add(seq);
            segmentFlight.add(Math.max(0, highestSent - lastAck));
        }
    }

    private static boolean is(byte[] addr, int length, int port, Endpoint e) {
        return port == e.port()
                && length == e.address().length
                && Arrays.equals(addr, 0, length, e.address(), 0, length);
    }
}
