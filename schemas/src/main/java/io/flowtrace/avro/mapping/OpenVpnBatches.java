package io.flowtrace.avro.mapping;

import io.flowtrace.avro.BatchedOpenVpnPacket;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The one mapping between captured OpenVPN packets and {@link OpenVpnBatch} (docs/schemas.md,
 * "OpenVpnBatch"): the agent builds batches with {@link Builder}, the job expands packet {@code i}
 * with {@link #fromAvro} into the {@link DecodedPacket} and header bytes that core's
 * {@code OpenVpnHeaderDecoder} and {@code OpenVpnSessionTracker} read offline, so streaming and
 * {@code flowtrace analyze} see the same packets.
 */
public final class OpenVpnBatches {
    /** Packets per batch the job accepts, as for PacketBatch. */
    public static final int MAX_PACKETS = PacketBatches.MAX_PACKETS;
    /**
     * Header bytes kept of a packet whose header did not decode: more than the longest OpenVPN
     * header (1 + 8 session id + 64 HMAC + 8 replay + 1 + 8 × 4 ACK ids + 8 remote id + 4 = 126).
     */
    public static final int MAX_HEADER_BYTES = 128;

    public static final long FINGERPRINT =
            SingleObjectCodec.of(OpenVpnBatch.class).fingerprint();

    /**
     * The released versions before the current one that agents in the field may still write (v1:
     * no wrapping_detected; v2: no transport, no tcp_retransmit): the released copies themselves
     * (schemas/src/test/resources/released/OpenVpnBatch, packaged by schemas/pom.xml), so the job
     * reads exactly what those agents wrote.
     */
    public static final List<Schema> OLDER_WRITERS = List.of(released(1), released(2));

    private static final Set<Long> FINGERPRINTS = fingerprints();

    /** Transport names of {@link OpenVpnBatch#getTransport()}. */
    public static final String UDP = "udp";

    public static final String TCP = "tcp";

    private OpenVpnBatches() {}

    /** A codec that decodes OpenVpnBatches of the current and every {@link #OLDER_WRITERS} version. */
    public static SingleObjectCodec<OpenVpnBatch> codec() {
        return SingleObjectCodec.of(OpenVpnBatch.class, OLDER_WRITERS);
    }

    /** Whether a value's writer fingerprint is an OpenVpnBatch's, current or older. */
    public static boolean isOpenVpnBatch(long fingerprint) {
        return fingerprint == FINGERPRINT || FINGERPRINTS.contains(fingerprint);
    }

    private static Set<Long> fingerprints() {
        return OLDER_WRITERS.stream()
                .map(SchemaNormalization::parsingFingerprint64)
                .collect(Collectors.toUnmodifiableSet());
    }

    private static Schema released(int version) {
        String name = "/io/flowtrace/avro/released/OpenVpnBatch/v" + version + ".avsc";
        try (InputStream in = OpenVpnBatches.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing from the schemas jar: " + name);
            }
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(name, e);
        }
    }

    /** The canonical flow key of a batch: the Kafka key, as {@link PacketEvents#flowKey} of any of its packets. */
    public static String flowKey(OpenVpnBatch b) {
        return BatchFields.flowKey(b.getVantage(), b.getLowAddr(), b.getLowPort(), b.getHighAddr(), b.getHighPort());
    }

    /** How the agent that wrote the batch was told its OpenVPN packets look. */
    public static OpenVpnWire wire(OpenVpnBatch b) {
        List<Integer> ports = b.getOpenvpnPorts();
        int[] p = new int[ports.size()];
        for (int i = 0; i < p.length; i++) {
            p[i] = ports.get(i);
        }
        return new OpenVpnWire(p, b.getTlsAuthDigestBytes(), b.getTlsCrypt(), b.getWrappingDetected());
    }

    /**
     * How many of a packet's payload bytes carry its OpenVPN header: what {@link Builder#add} keeps.
     * {@code h} is the agent's decode of the captured payload.
     */
    public static int headerBytes(DecodedPacket p, OpenVpnHeader h) {
        int captured = Math.min(p.payloadCaptured, p.payloadLength);
        return switch (h.kind) {
            case TRUNCATED, MALFORMED -> Math.min(captured, MAX_HEADER_BYTES);
            default -> Math.min(captured, p.payloadLength - h.payloadLength);
        };
    }

    /**
     * Why the batch cannot be analysed at all, or null: its vantage, endpoints (canonical order,
     * address lengths of its IP version), wire settings and packet count. A packet's own problems
     * are {@link #invalidPacketReason}'s.
     */
    public static String invalidReason(OpenVpnBatch b, long nowNanos) {
        String vantage = PacketEvents.vantageProblem(b.getVantage());
        if (vantage != null) {
            return vantage;
        }
        int len = b.getIpVersion() == 4 ? 4 : b.getIpVersion() == 6 ? 16 : -1;
        if (len < 0) {
            return "IP version " + b.getIpVersion();
        }
        if (b.getLowAddr().remaining() != len || b.getHighAddr().remaining() != len) {
            return "endpoint addresses of " + b.getLowAddr().remaining() + " and "
                    + b.getHighAddr().remaining() + " bytes for IPv" + b.getIpVersion();
        }
        if (!port(b.getLowPort()) || !port(b.getHighPort())) {
            return "port out of range: " + b.getLowPort() + ", " + b.getHighPort();
        }
        int order = Arrays.compareUnsigned(BatchFields.bytes(b.getLowAddr()), BatchFields.bytes(b.getHighAddr()));
        if (order > 0 || order == 0 && b.getLowPort() > b.getHighPort()) {
            return "endpoints not in canonical order (low endpoint is the higher one)";
        }
        int n = b.getPackets().size();
        if (n < 1 || n > MAX_PACKETS) {
            return n + " packets (1 to " + MAX_PACKETS + ")";
        }
        if (b.getOpenvpnPorts().size() > 64) {
            return b.getOpenvpnPorts().size() + " OpenVPN ports (at most 64)";
        }
        for (int p : b.getOpenvpnPorts()) {
            if (!port(p)) {
                return "OpenVPN port out of range: " + p;
            }
        }
        if (!UDP.equals(b.getTransport()) && !TCP.equals(b.getTransport())) {
            return "transport " + b.getTransport() + " (udp or tcp)";
        }
        try {
            wire(b);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        return PacketEvents.captureTimeProblem(b.getBaseTimeNs(), nowNanos);
    }

    /** Why packet {@code i} of a valid batch cannot be read, or null. */
    public static String invalidPacketReason(OpenVpnBatch b, int i, long nowNanos) {
        BatchedOpenVpnPacket p = b.getPackets().get(i);
        // a UDP payload, or a framed packet's 2-byte length (a TCP segment's payload is smaller still)
        int max = TCP.equals(b.getTransport()) ? 65_535 : 65_527;
        if (p.getPayloadLength() < 0 || p.getPayloadLength() > max) {
            return (TCP.equals(b.getTransport()) ? "payload length " : "UDP payload length ") + p.getPayloadLength();
        }
        if (p.getCapturedPayloadLength() < 0 || p.getCapturedPayloadLength() > p.getPayloadLength()) {
            return "captured payload length " + p.getCapturedPayloadLength() + " of " + p.getPayloadLength();
        }
        int header = p.getHeader().remaining();
        if (p.getTcpRetransmit() && (!TCP.equals(b.getTransport()) || header > 0)) {
            return "a TCP retransmission entry " + (header > 0 ? "with header bytes" : "in a UDP batch");
        }
        if (header > MAX_HEADER_BYTES || header > p.getCapturedPayloadLength()) {
            return header + " header bytes (captured " + p.getCapturedPayloadLength() + ", at most " + MAX_HEADER_BYTES
                    + ")";
        }
        return BatchFields.packetTimeProblem(b.getBaseTimeNs(), p.getTimeOffsetNs(), nowNanos);
    }

    /**
     * Fills {@code out} with packet {@code i} of a valid batch as core's decoder filled it from the
     * frame (status UDP, or TCP for transport tcp; addresses, ports, time, lengths; the payload is
     * {@code header[0, n)} with n the return value), and copies its header bytes into
     * {@code header} (at least {@link #MAX_HEADER_BYTES} long). A TCP retransmission entry
     * ({@link BatchedOpenVpnPacket#getTcpRetransmit()}) has no header: n is 0.
     */
    public static int fromAvro(OpenVpnBatch b, int i, DecodedPacket out, byte[] header) {
        BatchedOpenVpnPacket p = b.getPackets().get(i);
        boolean fromHigh = p.getFromHigh();
        out.status = TCP.equals(b.getTransport()) ? DecodeStatus.TCP : DecodeStatus.UDP;
        out.reason = null;
        out.timestampNanos = b.getBaseTimeNs() + p.getTimeOffsetNs();
        out.interfaceId = 0;
        out.wireLength = p.getWireLength();
        out.ipVersion = b.getIpVersion();
        BatchFields.fillEndpoints(out, fromHigh, b.getLowAddr(), b.getLowPort(), b.getHighAddr(), b.getHighPort());
        out.payloadLength = p.getPayloadLength();
        out.payloadOffset = 0;
        ByteBuffer h = p.getHeader();
        int n = h.remaining();
        h.duplicate().get(header, 0, n);
        out.payloadCaptured = n;
        return n;
    }

    private static boolean port(int p) {
        return p >= 0 && p <= 65_535;
    }

    /**
     * Collects one UDP flow's OpenVPN packets into a batch. Reusable: {@link #build()} starts the
     * next batch. Allocates a small record per packet: OpenVPN control traffic is a few hundred
     * packets per session, far from the TCP path's rates.
     */
    public static final class Builder {
        private final Vantage vantage;
        private OpenVpnWire wire;
        private final List<Integer> ports = new ArrayList<>();
        private final List<BatchedOpenVpnPacket> packets = new ArrayList<>();
        private int ipVersion;
        private byte[] lowAddr;
        private int lowPort;
        private byte[] highAddr;
        private int highPort;
        private long baseTimeNs;
        private int encodedBytes;
        private String transport = UDP;

        public Builder(Vantage vantage, OpenVpnWire wire) {
            this.vantage = vantage;
            this.wire = wire;
            for (int p : wire.ports()) {
                ports.add(p);
            }
        }

        /**
         * The layout the next batch is read with: its flow's (OpenVpnFlowLayouts), set before the
         * batch's first packet; a flow's layout never changes once found.
         */
        public void layout(OpenVpnWire flowLayout) {
            this.wire = flowLayout;
        }

        /** The transport of the next batch ({@link #UDP} or {@link #TCP}), set before its first packet. */
        public void transport(String transport) {
            this.transport = transport;
        }

        /** The transport of the open batch. */
        public String transport() {
            return transport;
        }

        /** The layout the open batch is read with. */
        public OpenVpnWire layout() {
            return wire;
        }

        /** Whether {@code p} belongs to the open batch's flow (always true when none is open). */
        public boolean accepts(DecodedPacket p) {
            if (packets.isEmpty()) {
                return true;
            }
            boolean low = p.sourceIsLow();
            return p.ipVersion == ipVersion
                    && Arrays.equals(low ? p.srcAddr : p.dstAddr, 0, p.addrLength, lowAddr, 0, lowAddr.length)
                    && (low ? p.srcPort : p.dstPort) == lowPort
                    && Arrays.equals(low ? p.dstAddr : p.srcAddr, 0, p.addrLength, highAddr, 0, highAddr.length)
                    && (low ? p.dstPort : p.srcPort) == highPort;
        }

        /**
         * Adds a UDP packet whose payload starts at {@code frame[p.payloadOffset]}, with the agent's
         * decode {@code h} of its header; returns an upper bound of the batch's encoded bytes so far.
         */
        public int add(DecodedPacket p, OpenVpnHeader h, byte[] frame) {
            boolean low = start(p);
            int n = headerBytes(p, h);
            packets.add(BatchedOpenVpnPacket.newBuilder()
                    .setTimeOffsetNs(p.timestampNanos - baseTimeNs)
                    .setFromHigh(!low)
                    .setPayloadLength(p.payloadLength)
                    .setCapturedPayloadLength(Math.min(p.payloadCaptured, p.payloadLength))
                    .setHeader(ByteBuffer.wrap(Arrays.copyOfRange(frame, p.payloadOffset, p.payloadOffset + n)))
                    .setWireLength(p.wireLength)
                    .build());
            encodedBytes += maxPacketBytes(n);
            return encodedBytes;
        }

        /**
         * Adds a TCP retransmission of a transport-tcp batch: segment {@code p} repeated stream bytes
         * already framed; returns an upper bound of the batch's encoded bytes so far.
         */
        public int addTcpRetransmit(DecodedPacket p) {
            boolean low = start(p);
            packets.add(BatchedOpenVpnPacket.newBuilder()
                    .setTimeOffsetNs(p.timestampNanos - baseTimeNs)
                    .setFromHigh(!low)
                    .setPayloadLength(p.payloadLength)
                    .setCapturedPayloadLength(Math.min(p.payloadCaptured, p.payloadLength))
                    .setHeader(ByteBuffer.wrap(new byte[0]))
                    .setWireLength(p.wireLength)
                    .setTcpRetransmit(true)
                    .build());
            encodedBytes += maxPacketBytes(0);
            return encodedBytes;
        }

        /** Takes the batch's endpoints and base time from its first packet; whether {@code p} is from the low end. */
        private boolean start(DecodedPacket p) {
            boolean low = p.sourceIsLow();
            if (packets.isEmpty()) {
                ipVersion = p.ipVersion;
                lowAddr = Arrays.copyOf(low ? p.srcAddr : p.dstAddr, p.addrLength);
                highAddr = Arrays.copyOf(low ? p.dstAddr : p.srcAddr, p.addrLength);
                lowPort = low ? p.srcPort : p.dstPort;
                highPort = low ? p.dstPort : p.srcPort;
                baseTimeNs = p.timestampNanos;
                encodedBytes = 68 + 2 * p.addrLength; // the fixed fields, transport included
            }
            return low;
        }

        /** An upper bound of the encoded bytes of one packet with {@code headerBytes} of header. */
        public static int maxPacketBytes(int headerBytes) {
            return 10 + 1 + 3 + 3 + 2 + headerBytes + 5 + 1;
        }

        public int size() {
            return packets.size();
        }

        public OpenVpnBatch build() {
            OpenVpnBatch b = OpenVpnBatch.newBuilder()
                    .setVantage(vantage)
                    .setIpVersion(ipVersion)
                    .setLowAddr(ByteBuffer.wrap(lowAddr))
                    .setLowPort(lowPort)
                    .setHighAddr(ByteBuffer.wrap(highAddr))
                    .setHighPort(highPort)
                    .setBaseTimeNs(baseTimeNs)
                    .setOpenvpnPorts(new ArrayList<>(ports))
                    .setTlsAuthDigestBytes(wire.tlsAuthDigestBytes())
                    .setTlsCrypt(wire.tlsCrypt())
                    .setWrappingDetected(wire.detect())
                    .setTransport(transport)
                    .setPackets(new ArrayList<>(packets))
                    .build();
            packets.clear();
            return b;
        }
    }
}
