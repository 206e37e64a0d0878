package io.flowtrace.avro;

import java.nio.ByteBuffer;
import java.util.List;

/** Realistic, hand-written contract instances for encoding tests and measurements. */
final class SampleRecords {

    private SampleRecords() {}

    static Vantage vantage() {
        return new Vantage("edge-host-01", "eth0");
    }

    /** A mid-transfer data segment of an IPv4 flow with timestamps and one SACK block. */
    static PacketEvent dataSegment(long captureTimeNs, long seq) {
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(captureTimeNs)
                .setVantage(vantage())
                .setLinkType(1)
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                .setDstAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                .setSrcPort(443)
                .setDstPort(51234)
                .setIpId(23117)
                .setTtl(64)
                .setIpTotalLength(1500)
                .setTcpFlags(0x18) // ACK | PSH
                .setSeq(seq & 0xFFFF_FFFFL)
                .setAck(3_221_225_472L)
                .setWindow(501)
                .setPayloadLength(1448)
                .setCapturedLength(96)
                .setWireLength(1514)
                .setSackBlocks(List.of(new SackBlock(3_221_226_920L, 3_221_228_368L)))
                .setTsVal(2_837_402_111L)
                .setTsEcr(912_345_678L)
                .build();
    }

    /** Three data segments and one ACK of an IPv4 flow as one batch, sequence numbers relative to the header. */
    static PacketBatch batch() {
        BatchedPacket data = BatchedPacket.newBuilder()
                .setTimeOffsetNs(0)
                .setFromHigh(false)
                .setSeqOffset(0)
                .setAckOffset(0)
                .setIpId(23117)
                .setTtl(64)
                .setIpTotalLength(1500)
                .setTcpFlags(0x18)
                .setWindow(501)
                .setPayloadLength(1448)
                .setCapturedLength(96)
                .setWireLength(1514)
                .setTsVal(2_837_402_111L)
                .setTsEcr(912_345_678L)
                .build();
        BatchedPacket ack = BatchedPacket.newBuilder(data)
                .setTimeOffsetNs(180_000)
                .setFromHigh(true)
                .setSeqOffset(0)
                .setAckOffset(4_344)
                .setIpId(811)
                .setIpTotalLength(64)
                .setTcpFlags(0x10)
                .setPayloadLength(0)
                .setCapturedLength(78)
                .setWireLength(78)
                .setSackBlocks(List.of(new BatchedSackBlock(5_792, 7_240)))
                .build();
        return PacketBatch.newBuilder()
                .setVantage(vantage())
                .setLinkType(1)
                .setIpVersion(4)
                .setLowAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                .setLowPort(443)
                .setHighAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                .setHighPort(51234)
                .setBaseTimeNs(1_732_924_800_500_000_000L)
                .setLowSeqBase(4_294_960_000L)
                .setHighSeqBase(3_221_225_472L)
                .setPackets(List.of(
                        data,
                        BatchedPacket.newBuilder(data)
                                .setTimeOffsetNs(12_000)
                                .setSeqOffset(1_448)
                                .setIpId(23118)
                                .build(),
                        BatchedPacket.newBuilder(data)
                                .setTimeOffsetNs(24_000)
                                .setSeqOffset(2_896)
                                .setIpId(23119)
                                .build(),
                        ack))
                .build();
    }

    /** A SYN with every option a Linux client sends. */
    static PacketEvent syn() {
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(1_732_924_800_123_456_789L)
                .setVantage(vantage())
                .setLinkType(1)
                .setIpVersion(6)
                .setSrcAddr(
                        ByteBuffer.wrap(new byte[] {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}))
                .setDstAddr(
                        ByteBuffer.wrap(new byte[] {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}))
                .setSrcPort(51234)
                .setDstPort(443)
                .setTtl(64)
                .setIpTotalLength(80)
                .setTcpFlags(0x02)
                .setSeq(4_294_967_295L)
                .setAck(0)
                .setWindow(64800)
                .setPayloadLength(0)
                .setCapturedLength(94)
                .setWireLength(94)
                .setMss(1440)
                .setWindowScale(7)
                .setSackPermitted(true)
                .setTsVal(1L)
                .setTsEcr(0L)
                .build();
    }

    static ConntrackEvent conntrackDestroy() {
        CtTuple orig = CtTuple.newBuilder()
                .setSrc(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                .setDst(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                .setL4Proto(6)
                .setSrcPort(51234)
                .setDstPort(443)
                .build();
        CtTuple reply = CtTuple.newBuilder()
                .setSrc(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                .setDst(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                .setL4Proto(6)
                .setSrcPort(443)
                .setDstPort(51234)
                .build();
        return ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.DESTROY)
                .setTimeNs(1_732_924_860_000_000_000L)
                .setVantage(new Vantage("edge-host-01", "conntrack"))
                .setL3Proto(2)
                .setL4Proto(6)
                .setOrig(orig)
                .setReply(reply)
                .setStatus(0x19e) // SEEN_REPLY | ASSURED | CONFIRMED | SRC_NAT_DONE | DST_NAT_DONE
                .setCounters(new CtCounters(12L, 1_024L, 10L, 65_536L))
                .setTimestampStartNs(1_732_924_800_000_000_000L)
                .setTimestampStopNs(1_732_924_860_000_000_000L)
                .setMark(0L)
                .setZone(0)
                .setId(3_735_928_559L)
                .setUse(1L)
                .setWireSize(220)
                .setAttributeTypes(List.of(1, 2, 3, 9, 10, 18, 19, 20, 8, 12))
                .setSource(ConntrackSource.NETLINK)
                .build();
    }

    static ConntrackLoss conntrackLoss() {
        return new ConntrackLoss(
                1_732_924_861_000_000_000L,
                new Vantage("edge-host-01", "conntrack"),
                3L,
                2_097_152,
                ConntrackSource.NETLINK);
    }

    static FlowRecord flowRecord() {
        DirectionStats c2s = DirectionStats.newBuilder()
                .setPackets(120)
                .setDataPackets(100)
                .setDataBytes(144_800)
                .setUniqueBytes(143_352)
                .setRetransmittedPackets(1)
                .setRetransmittedBytes(1_448)
                .setRetransmits(new RetransmitCounts(0L, 1L, 0L, 0L, 0L))
                .setRttUs(new RttStats(40L, 95.0, 180.5, 2_400.0, 320.1))
                .setMss(1440)
                .setMaxSegmentBytes(1448)
                .setThroughputBps(9.4e8)
                .setSlowStart(SlowStart.newBuilder()
                        .setExit(SlowStartExitReason.ACK_TRAIN)
                        .setExitUs(10_500L)
                        .setExitCwndBytes(28_960L)
                        .setExitCwndSegments(20)
                        .setMinRttUs(95.0)
                        .setMaxCwndBytes(434_400L)
                        .setPremature(true)
                        .build())
                .build();
        return FlowRecord.newBuilder()
                .setFlow(new FlowIdentity(vantage(), "10.0.0.2:51234", "10.0.0.1:443", 1_732_924_800_123_456L, false))
                .setFirstSeenUs(1_732_924_800_123_456L)
                .setLastSeenUs(1_732_924_801_000_000L)
                .setEnd(FlowEnd.FIN)
                .setSetup(FlowSetup.newBuilder()
                        .setSynRetransmits(1)
                        .setSynRetransmitGapsUs(List.of(1_000_000L))
                        .setSetupUs(1_001_200L)
                        .setHandshakeRttUs(1_200L)
                        .build())
                .setC2s(c2s)
                .build();
    }
}
