package io.flowtrace.jobs.conntrack;

import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.CtCounters;
import io.flowtrace.avro.CtNatSeqAdj;
import io.flowtrace.avro.CtProtoinfoTcp;
import io.flowtrace.avro.CtTuple;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.ConntrackEvent;
import io.flowtrace.core.conntrack.ConntrackTuple;
import io.flowtrace.core.conntrack.CtnetlinkParseException;
import io.flowtrace.core.conntrack.CtnetlinkParser;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NlAttribute;
import io.flowtrace.core.conntrack.SeqAdjustment;
import io.flowtrace.core.conntrack.TcpProtoInfo;
import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Committed real ctnetlink recordings (testdata/conntrack/CASE.nl.bin: [u32 LE length][message]) as
 * raw messages, as core events (CtnetlinkParser) and as the Avro ConntrackEvents an agent publishes.
 * {@link #toAvro} mirrors agent/.../ConntrackAvroMapper.toAvro line for line (jobs cannot depend on
 * the agent module): absent = -1/null in core, null in the contract.
 */
public final class ConntrackFixtures {
    public static final List<String> CASES = List.of("v4_plain", "v6_plain", "v4_mark", "v6_mark", "v4_zone", "v6_zone",
            "v4_zone_mark", "v4_nat", "v6_nat", "v4_xml", "v4_nofeat", "v6_nofeat", "burst");

    private ConntrackFixtures() {
    }

    /** The raw messages of a case; each one's length is its length prefix, i.e. the real nlmsg size. */
    public static List<byte[]> messages(String name) {
        try {
            byte[] bin = Files.readAllBytes(TestData.file("conntrack/" + name + ".nl.bin"));
            ByteBuffer bb = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
            List<byte[]> out = new ArrayList<>();
            while (bb.remaining() >= 4) {
                byte[] m = new byte[bb.getInt()];
                bb.get(m);
                out.add(m);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ConntrackEvent parse(byte[] message) {
        return parse(message, ConntrackEvent.ABSENT);
    }

    /** As the raw agent reads it: {@code observedAtNanos} is the receive time (-1: unknown). */
    public static ConntrackEvent parse(byte[] message, long observedAtNanos) {
        try {
            return new CtnetlinkParser().parse(message, 0, message.length, observedAtNanos);
        } catch (CtnetlinkParseException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The features the capture script set for the case (as core's RecordedCase.features()). */
    public static KernelFeatures features(String name) {
        boolean on = !name.endsWith("nofeat");
        return KernelFeatures.stock().withAcct(on).withTimestamp(on);
    }

    /** Mirror of ConntrackAvroMapper.toAvro. */
    public static io.flowtrace.avro.ConntrackEvent toAvro(ConntrackEvent e, Vantage vantage, ConntrackSource source) {
        List<Integer> types = new ArrayList<>();
        if (e.attributes() != null) {
            for (NlAttribute a : e.attributes().attributes()) {
                types.add(a.type());
            }
        }
        io.flowtrace.avro.ConntrackEvent.Builder b = io.flowtrace.avro.ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.valueOf(e.type().name()))
                .setTimeNs(e.observedAtNanos() != ConntrackEvent.ABSENT ? e.observedAtNanos() : e.timeNanos())
                .setVantage(vantage)
                .setL3Proto(Math.max(e.family(), 0))
                .setL4Proto(Math.max(e.proto(), 0))
                .setStatus(Math.max(e.status(), 0))
                .setTimeout(present(e.timeout()))
                .setTimestampStartNs(present(e.timestampStart()))
                .setTimestampStopNs(present(e.timestampStop()))
                .setMark(present(e.mark()))
                .setZone(e.zone() == ConntrackEvent.ABSENT ? null : e.zone())
                .setId(present(e.id()))
                .setUse(present(e.use()))
                .setHelper(e.helper())
                .setLabels(e.labels() == null ? null : ByteBuffer.wrap(e.labels()))
                .setSecctx(e.secctx())
                .setNatSeqAdjOrig(seqAdj(e.seqAdjOrig()))
                .setNatSeqAdjReply(seqAdj(e.seqAdjReply()))
                .setEventTimestampNs(present(e.eventTimestampNanos()))
                .setWireSize(e.wireSize() == ConntrackEvent.ABSENT ? null : e.wireSize())
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
                    .setOrigPackets(e.origCounters() == null ? 0 : e.origCounters().packets())
                    .setOrigBytes(e.origCounters() == null ? 0 : e.origCounters().bytes())
                    .setReplyPackets(e.replyCounters() == null ? 0 : e.replyCounters().packets())
                    .setReplyBytes(e.replyCounters() == null ? 0 : e.replyCounters().bytes())
                    .build());
        }
        return b.build();
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
        return v == ConntrackEvent.ABSENT ? null : v;
    }
}
