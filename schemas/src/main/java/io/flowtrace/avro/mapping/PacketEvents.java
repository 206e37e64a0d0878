package io.flowtrace.avro.mapping;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SackBlock;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Between core's {@link DecodedPacket} and the {@link PacketEvent} contract: the agents encode
 * with it, the job decodes and validates with it, so both ends agree on every field.
 */
public final class PacketEvents {
    /** Capture times outside [2000-01-01, 2100-01-01) are corrupt, not clock skew. */
    static final long MIN_TIME_NS = 946_684_800_000_000_000L;

    static final long MAX_TIME_NS = 4_102_444_800_000_000_000L;
    /** Agents' clocks may be skewed by minutes; a day ahead is a broken clock or a corrupt record. */
    static final long MAX_FUTURE_NS = 86_400_000_000_000L;
    /** Host names are at most 253 characters; interface names far shorter (IFNAMSIZ 16, pcapng names ~50). */
    static final int MAX_VANTAGE_CHARS = 255;

    private PacketEvents() {}

    /** The vantage text flows are keyed and reported by: {@link VantagePoint#text} "agent/interface". */
    public static String vantage(Vantage v) {
        return VantagePoint.text(v.getAgentId(), v.getInterfaceName());
    }

    /** Core's value of the contract's vantage record. */
    public static VantagePoint vantagePoint(Vantage v) {
        return new VantagePoint(v.getAgentId(), v.getInterfaceName());
    }

    /** The contract's vantage record of core's value. */
    public static Vantage toAvro(VantagePoint v) {
        return new Vantage(v.agentId(), v.interfaceName());
    }

    /** The Kafka record key and Flink key of a packet: its canonical bidirectional flow key. */
    public static String flowKey(VantagePoint vantage, DecodedPacket p) {
        return FlowKey.of(
                        vantage,
                        new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort),
                        new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort))
                .canonical();
    }

    public static PacketEvent toAvro(DecodedPacket p, Vantage vantage) {
        List<SackBlock> sacks = new ArrayList<>(p.sackCount);
        for (int i = 0; i < p.sackCount; i++) {
            sacks.add(new SackBlock(p.sackLeft[i], p.sackRight[i]));
        }
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(p.timestampNanos)
                .setVantage(vantage)
                .setLinkType(p.linkType)
                .setIpVersion(p.ipVersion)
                .setSrcAddr(ByteBuffer.wrap(Arrays.copyOf(p.srcAddr, p.addrLength)))
                .setDstAddr(ByteBuffer.wrap(Arrays.copyOf(p.dstAddr, p.addrLength)))
                .setSrcPort(p.srcPort)
                .setDstPort(p.dstPort)
                .setIpId(p.ipVersion == 4 && p.ipId >= 0 ? p.ipId : null)
                .setTtl(p.ttl)
                .setIpTotalLength(p.ipTotalLength)
                .setTcpFlags(p.flags)
                .setSeq(p.seq)
                .setAck(p.ack)
                .setWindow(p.window)
                .setPayloadLength(p.payloadLength)
                .setCapturedLength(p.capturedLength)
                .setWireLength(p.wireLength)
                .setMss(p.mss >= 0 ? p.mss : null)
                .setWindowScale(p.windowScale >= 0 ? p.windowScale : null)
                .setSackPermitted(p.sackPermitted)
                .setSackBlocks(sacks)
                .setTsVal(p.tsVal >= 0 ? p.tsVal : null)
                .setTsEcr(p.tsVal >= 0 ? p.tsEcr : null)
                .setTruncated(p.truncation != 0)
                .build();
    }

    /**
     * Why this record cannot be analysed, or null when it can. The job dead-letters records with a
     * reason rather than let absurd values corrupt flow state.
     */
    public static String invalidReason(PacketEvent e) {
        return invalidReason(e, System.currentTimeMillis() * 1_000_000L);
    }

    /**
     * As {@link #invalidReason(PacketEvent)} with the validating host's clock given: a capture time
     * more than {@link #MAX_FUTURE_NS} ahead of it is corrupt (50 years ahead is still before 2100).
     * A record valid once stays valid when replayed later, so replays after a failure agree.
     */
    public static String invalidReason(PacketEvent e, long nowNanos) {
        String vantage = vantageProblem(e.getVantage());
        if (vantage != null) {
            return vantage;
        }
        int v = e.getIpVersion();
        if (v != 4 && v != 6) {
            return "ip_version " + v + " is neither 4 nor 6";
        }
        int want = v == 4 ? 4 : 16;
        if (e.getSrcAddr().remaining() != want || e.getDstAddr().remaining() != want) {
            return "address lengths " + e.getSrcAddr().remaining() + "/"
                    + e.getDstAddr().remaining() + " do not match IPv" + v;
        }
        if (outside(e.getSrcPort(), 0, 65535) || outside(e.getDstPort(), 0, 65535)) {
            return "port out of range: " + e.getSrcPort() + " -> " + e.getDstPort();
        }
        if (e.getSeq() < 0 || e.getSeq() > 0xffffffffL || e.getAck() < 0 || e.getAck() > 0xffffffffL) {
            return "seq/ack outside 32 bits: " + e.getSeq() + "/" + e.getAck();
        }
        for (SackBlock b : e.getSackBlocks()) {
            if (b.getLeft() < 0 || b.getLeft() > 0xffffffffL || b.getRight() < 0 || b.getRight() > 0xffffffffL) {
                return "SACK edge outside 32 bits";
            }
        }
        String segment = segmentProblem(
                e.getWindow(),
                e.getPayloadLength(),
                e.getIpTotalLength(),
                e.getTcpFlags(),
                e.getSackBlocks().size(),
                e.getMss(),
                e.getWindowScale(),
                e.getCapturedLength(),
                e.getWireLength(),
                e.getTtl(),
                e.getIpId(),
                e.getTsVal(),
                e.getTsEcr());
        if (segment != null) {
            return segment;
        }
        return captureTimeProblem(e.getCaptureTimeNs(), nowNanos);
    }

    /**
     * Why the per-segment fields a PacketEvent and a PacketBatch's packet share cannot be analysed,
     * or null. One rule set for both contracts, so a packet is refused for the same reason whichever
     * record carried it.
     */
    static String segmentProblem(
            int window,
            int payloadLength,
            int ipTotalLength,
            int tcpFlags,
            int sackBlocks,
            Integer mss,
            Integer windowScale,
            int capturedLength,
            int wireLength,
            int ttl,
            Integer ipId,
            Long tsVal,
            Long tsEcr) {
        if (outside(window, 0, 65535)) {
            return "window " + window + " outside 16 bits";
        }
        if (outside(payloadLength, 0, 65535) || outside(ipTotalLength, 0, 1 << 20)) {
            return "payload length " + payloadLength + " / IP length " + ipTotalLength + " impossible";
        }
        if (outside(tcpFlags, 0, 0x1ff)) {
            return "tcp flags " + tcpFlags + " outside 9 bits";
        }
        if (sackBlocks > DecodedPacket.MAX_SACK_BLOCKS) {
            return sackBlocks + " SACK blocks (at most " + DecodedPacket.MAX_SACK_BLOCKS + " fit in a TCP header)";
        }
        if (mss != null && outside(mss, 0, 65535)) {
            return "mss " + mss + " outside 16 bits";
        }
        if (windowScale != null && outside(windowScale, 0, 255)) {
            return "window scale " + windowScale + " outside 8 bits";
        }
        if (outside(capturedLength, 0, 1 << 20) || outside(wireLength, 0, 1 << 20)) {
            return "captured/wire length " + capturedLength + "/" + wireLength + " impossible";
        }
        if (outside(ttl, 0, 255)) {
            return "ttl " + ttl + " outside 8 bits";
        }
        if (ipId != null && outside(ipId, 0, 65535)) {
            return "ip_id " + ipId + " outside 16 bits";
        }
        // -1: the agent's "not read" (a snapped timestamp option), which fromAvro maps to absent
        if ((tsVal != null && outside(tsVal, -1, 0xffffffffL)) || (tsEcr != null && outside(tsEcr, -1, 0xffffffffL))) {
            return "TSval/TSecr " + tsVal + "/" + tsEcr + " outside 32 bits";
        }
        return null;
    }

    /**
     * Why a capture time is corrupt, or null: outside [2000, 2100), or more than {@link #MAX_FUTURE_NS}
     * ahead of the validating host's clock.
     */
    public static String captureTimeProblem(long captureTimeNs, long nowNanos) {
        if (captureTimeNs < MIN_TIME_NS || captureTimeNs >= MAX_TIME_NS) {
            return "capture time " + captureTimeNs + " ns is not between 2000 and 2100";
        }
        if (nowNanos < MAX_TIME_NS - MAX_FUTURE_NS && captureTimeNs > nowNanos + MAX_FUTURE_NS) {
            return "capture time " + captureTimeNs + " ns is more than a day ahead of this host's clock (" + nowNanos
                    + " ns)";
        }
        return null;
    }

    /**
     * Why a vantage cannot key flows and rows, or null. The strings end up in keys and PostgreSQL
     * text columns: PostgreSQL refuses NUL in text, and a b-tree key over ~2.7 kB fails the insert,
     * either of which would fail the sink and with it the job, so both are refused here.
     */
    public static String vantageProblem(Vantage v) {
        if (v == null || v.getAgentId().isEmpty()) {
            return "vantage without agent_id";
        }
        String problem = vantageStringProblem("agent_id", v.getAgentId());
        return problem != null ? problem : vantageStringProblem("interface_name", v.getInterfaceName());
    }

    private static String vantageStringProblem(String field, String s) {
        if (s.length() > MAX_VANTAGE_CHARS) {
            return "vantage " + field + " of " + s.length() + " characters (at most " + MAX_VANTAGE_CHARS + ")";
        }
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                return "vantage " + field + " contains control character U+"
                        + String.format(Locale.ROOT, "%04X", (int) s.charAt(i));
            }
        }
        return null;
    }

    /** Fills {@code out} from a validated event (see {@link #invalidReason}). */
    public static void fromAvro(PacketEvent e, DecodedPacket out) {
        out.status = DecodeStatus.TCP;
        out.reason = null;
        out.timestampNanos = e.getCaptureTimeNs();
        out.interfaceId = 0;
        out.linkType = e.getLinkType();
        out.capturedLength = e.getCapturedLength();
        out.wireLength = e.getWireLength();
        out.vlanOuter = -1;
        out.vlanInner = -1;
        out.ipVersion = e.getIpVersion();
        out.addrLength = e.getSrcAddr().remaining();
        e.getSrcAddr().duplicate().get(out.srcAddr, 0, out.addrLength);
        e.getDstAddr().duplicate().get(out.dstAddr, 0, out.addrLength);
        out.ipId = e.getIpId() == null ? -1 : e.getIpId();
        out.ttl = e.getTtl();
        out.ipTotalLength = e.getIpTotalLength();
        out.fragmented = false;
        out.srcPort = e.getSrcPort();
        out.dstPort = e.getDstPort();
        out.seq = e.getSeq();
        out.ack = e.getAck();
        out.flags = e.getTcpFlags();
        out.window = e.getWindow();
        out.payloadLength = e.getPayloadLength();
        out.tcpHeaderLength = 0;
        out.mss = e.getMss() == null ? -1 : e.getMss();
        out.windowScale = e.getWindowScale() == null ? -1 : e.getWindowScale();
        out.sackPermitted = e.getSackPermitted();
        List<SackBlock> sacks = e.getSackBlocks();
        out.sackCount = Math.min(sacks.size(), DecodedPacket.MAX_SACK_BLOCKS);
        for (int i = 0; i < out.sackCount; i++) {
            out.sackLeft[i] = sacks.get(i).getLeft();
            out.sackRight[i] = sacks.get(i).getRight();
        }
        out.tsVal = e.getTsVal() == null ? -1 : e.getTsVal();
        out.tsEcr = e.getTsEcr() == null ? -1 : e.getTsEcr();
        out.badOptions = false;
        out.truncation = e.getTruncated() ? DecodedPacket.TRUNCATED_OPTIONS : 0;
    }

    private static boolean outside(long v, long min, long max) {
        return v < min || v > max;
    }
}
