package io.flowtrace.avro.mapping;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.CtCounters;
import io.flowtrace.avro.CtNatSeqAdj;
import io.flowtrace.avro.CtProtoinfoTcp;
import io.flowtrace.avro.CtTuple;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.ConntrackTuple;
import io.flowtrace.core.conntrack.NlAttribute;
import io.flowtrace.core.conntrack.SeqAdjustment;
import io.flowtrace.core.conntrack.TcpProtoInfo;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Core's conntrack event model to the {@code ConntrackMessage} / {@code ConntrackLoss} Avro contracts
 * (docs/schemas.md). Core marks an absent attribute with -1 or null; the contract with null.
 */
public final class ConntrackAvroMapper {
    private ConntrackAvroMapper() {}

    public static ConntrackEvent toAvro(ConntrackMessage e, Vantage vantage, ConntrackSource source) {
        List<Integer> types = new ArrayList<>();
        if (e.attributes() != null) {
            for (NlAttribute a : e.attributes().attributes()) {
                types.add(a.type());
            }
        }
        ConntrackEvent.Builder b = ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.valueOf(e.type().name()))
                .setTimeNs(e.observedAtNanos() != ConntrackMessage.ABSENT ? e.observedAtNanos() : e.timeNanos())
                .setVantage(vantage)
                .setL3Proto(Math.max(e.family(), 0))
                .setL4Proto(Math.max(e.proto(), 0))
                .setStatus(Math.max(e.status(), 0))
                .setTimeout(present(e.timeout()))
                .setTimestampStartNs(present(e.timestampStart()))
                .setTimestampStopNs(present(e.timestampStop()))
                .setMark(present(e.mark()))
                .setZone(e.zone() == ConntrackMessage.ABSENT ? null : e.zone())
                .setId(present(e.id()))
                .setUse(present(e.use()))
                .setHelper(e.helper())
                .setLabels(e.labels() == null ? null : ByteBuffer.wrap(e.labels()))
                .setSecctx(e.secctx())
                .setNatSeqAdjOrig(seqAdj(e.seqAdjOrig()))
                .setNatSeqAdjReply(seqAdj(e.seqAdjReply()))
                .setEventTimestampNs(present(e.eventTimestampNanos()))
                .setWireSize(e.wireSize() == ConntrackMessage.ABSENT ? null : e.wireSize())
                .setAttributeTypes(types)
                .setSource(source);
        if (e.orig() != null) {
            b.setOrig(tuple(e.orig()));
        }
        if (e.reply() != null) {
            b.setReply(tuple(e.reply()));
        }
        b.setMaster(e.master() == null ? null : tuple(e.master()));
        b.setProtoinfoTcp(tcp(e.tcp()));
        if (e.origCounters() != null || e.replyCounters() != null) {
            b.setCounters(CtCounters.newBuilder()
                    .setOrigPackets(
                            e.origCounters() == null ? 0 : e.origCounters().packets())
                    .setOrigBytes(
                            e.origCounters() == null ? 0 : e.origCounters().bytes())
                    .setReplyPackets(
                            e.replyCounters() == null ? 0 : e.replyCounters().packets())
                    .setReplyBytes(
                            e.replyCounters() == null ? 0 : e.replyCounters().bytes())
                    .build());
        }
        return b.build();
    }

    public static ConntrackLoss loss(
            long timeNanos, Vantage vantage, long enobufs, Integer receiveBuffer, ConntrackSource source) {
        return ConntrackLoss.newBuilder()
                .setTimeNs(timeNanos)
                .setVantage(vantage)
                .setEnobufsCount(enobufs)
                .setReceiveBufferBytes(receiveBuffer)
                .setSource(source)
                .build();
    }

    /** Kafka key of an event: {@code agent/interface l3/l4 src:sport dst:dport} of the original tuple. */
    public static String key(String vantage, ConntrackMessage e) {
        ConntrackTuple t = e.orig();
        if (t == null) {
            return vantage + " " + e.family() + "/-";
        }
        return vantage + " " + e.family() + "/" + t.proto() + " " + endpoint(t.src(), t.srcPort()) + " "
                + endpoint(t.dst(), t.dstPort());
    }

    private static String endpoint(byte[] addr, int port) {
        String host;
        try {
            host = addr == null ? "-" : InetAddress.getByAddress(addr).getHostAddress();
        } catch (UnknownHostException e) {
            host = "?";
        }
        if (addr != null && addr.length == 16) {
            host = "[" + host + "]";
        }
        return port == ConntrackTuple.ABSENT ? host : host + ":" + port;
    }

    private static CtTuple tuple(ConntrackTuple t) {
        return CtTuple.newBuilder()
                .setSrc(ByteBuffer.wrap(t.src() == null ? new byte[0] : t.src()))
                .setDst(ByteBuffer.wrap(t.dst() == null ? new byte[0] : t.dst()))
                .setL4Proto(Math.max(t.proto(), 0))
                .setSrcPort(t.srcPort() == ConntrackTuple.ABSENT ? null : t.srcPort())
                .setDstPort(t.dstPort() == ConntrackTuple.ABSENT ? null : t.dstPort())
                .setIcmpType(t.icmpType() == ConntrackTuple.ABSENT ? null : t.icmpType())
                .setIcmpCode(t.icmpCode() == ConntrackTuple.ABSENT ? null : t.icmpCode())
                .setIcmpId(t.icmpId() == ConntrackTuple.ABSENT ? null : t.icmpId())
                .build();
    }

    private static CtProtoinfoTcp tcp(TcpProtoInfo p) {
        if (p == null) {
            return null;
        }
        return CtProtoinfoTcp.newBuilder()
                .setState(p.state())
                .setWscaleOrig(p.wscaleOrig() == TcpProtoInfo.ABSENT ? null : p.wscaleOrig())
                .setWscaleReply(p.wscaleReply() == TcpProtoInfo.ABSENT ? null : p.wscaleReply())
                .setFlagsOrig(p.flagsOrig() == TcpProtoInfo.ABSENT ? null : p.flagsOrig())
                .setFlagsReply(p.flagsReply() == TcpProtoInfo.ABSENT ? null : p.flagsReply())
                .build();
    }

    private static CtNatSeqAdj seqAdj(SeqAdjustment s) {
        return s == null ? null : new CtNatSeqAdj(s.correctionPos(), s.offsetBefore(), s.offsetAfter());
    }

    private static Long present(long v) {
        return v == ConntrackMessage.ABSENT ? null : v;
    }
}
