package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Absurd values the first validation let through (found while building the hostile-input test of
 * docs/reliability.md): each was analysed as a packet, or would have failed the PostgreSQL sink and the job.
 */
class PacketEventsHostileTest {
    /** 2026-11-29T08:53:20Z. */
    private static final long NOW = 1_796_000_000_000_000_000L;

    private static final long YEAR = 365L * 86_400 * 1_000_000_000L;
    private static final PacketEvent GOOD = PacketEvent.newBuilder()
            .setCaptureTimeNs(NOW)
            .setVantage(new Vantage("host-a", "eth0"))
            .setSrcAddr(ByteBuffer.wrap(new byte[4]))
            .setDstAddr(ByteBuffer.wrap(new byte[4]))
            .setTtl(64)
            .setCapturedLength(54)
            .setWireLength(54)
            .build();

    @Test
    void refusesCaptureTimesFiftyYearsAheadThoughBefore2100() {
        assertThat(PacketEvents.invalidReason(GOOD, NOW)).isNull();
        // clock skew between agents is minutes; an hour ahead is still accepted
        assertThat(PacketEvents.invalidReason(at(NOW + 3_600_000_000_000L), NOW))
                .isNull();
        assertThat(PacketEvents.invalidReason(at(NOW + 50 * YEAR), NOW)).contains("more than a day ahead");
        assertThat(PacketEvents.invalidReason(at(NOW + 2 * 86_400_000_000_000L), NOW))
                .contains("more than a day ahead");
        // replays of old captures stay valid
        assertThat(PacketEvents.invalidReason(at(NOW - 20 * YEAR), NOW)).isNull();
    }

    @Test
    void refusesNegativeOrAbsurdCapturedAndWireLengths() {
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setCapturedLength(-1).build(), NOW))
                .isEqualTo("captured/wire length -1/54 impossible");
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD)
                                .setWireLength((int) 0xffffffffL)
                                .build(),
                        NOW))
                .isEqualTo("captured/wire length 54/-1 impossible");
        // a 64 KiB TSO super-segment is real
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setWireLength(65_590).build(), NOW))
                .isNull();
    }

    @Test
    void refusesHeaderFieldsWiderThanOnTheWire() {
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setTtl(256).build(), NOW))
                .isEqualTo("ttl 256 outside 8 bits");
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setIpId(65_536).build(), NOW))
                .isEqualTo("ip_id 65536 outside 16 bits");
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD)
                                .setTsVal(1L << 32)
                                .setTsEcr(0L)
                                .build(),
                        NOW))
                .startsWith("TSval/TSecr 4294967296/0");
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD)
                                .setTsVal(0xffffffffL)
                                .setTsEcr(0xffffffffL)
                                .build(),
                        NOW))
                .isNull();
        // a snapped option: the agent writes TSecr -1 for "not read"
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setTsVal(7L).setTsEcr(-1L).build(), NOW))
                .isNull();
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(GOOD).setTsVal(7L).setTsEcr(-2L).build(), NOW))
                .startsWith("TSval/TSecr 7/-2");
    }

    @Test
    void refusesVantagesThatCannotBeStoredOrKeyed() {
        assertThat(PacketEvents.invalidReason(withVantage("", "eth0"), NOW)).isEqualTo("vantage without agent_id");
        assertThat(PacketEvents.invalidReason(withVantage("a\u0000b", "eth0"), NOW))
                .isEqualTo("vantage agent_id contains control character U+0000");
        assertThat(PacketEvents.invalidReason(withVantage("host", "eth\n0"), NOW))
                .isEqualTo("vantage interface_name contains control character U+000A");
        assertThat(PacketEvents.invalidReason(withVantage("a".repeat(256), "eth0"), NOW))
                .isEqualTo("vantage agent_id of 256 characters (at most 255)");
        assertThat(PacketEvents.invalidReason(withVantage("a".repeat(255), "\\Device\\NPF_{0A1B2C3D-4E5F}"), NOW))
                .isNull();
        assertThat(PacketEvents.invalidReason(withVantage("hôte-ü", "any"), NOW))
                .isNull();
    }

    @Test
    void conntrackRecordsGetTheSameVantageRules() {
        ConntrackLoss loss = ConntrackLoss.newBuilder()
                .setVantage(new Vantage("a\u0000", "conntrack"))
                .setTimeNs(NOW)
                .setEnobufsCount(1)
                .build();
        assertThat(ConntrackEvents.invalidReason(loss)).isEqualTo("vantage agent_id contains control character U+0000");
        ConntrackEvent event = ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.NEW)
                .setVantage(new Vantage("x".repeat(300), "conntrack"))
                .setTimeNs(NOW)
                .setL3Proto(2)
                .setL4Proto(6)
                .setOrig(tuple())
                .setReply(tuple())
                .setStatus(0)
                .build();
        assertThat(ConntrackEvents.invalidReason(event)).isEqualTo("vantage agent_id of 300 characters (at most 255)");
    }

    @Test
    void conntrackTimesFiftyYearsAheadAreRefusedToo() {
        ConntrackEvent event = ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.NEW)
                .setVantage(new Vantage("host", "conntrack"))
                .setTimeNs(NOW)
                .setL3Proto(2)
                .setL4Proto(6)
                .setOrig(tuple())
                .setReply(tuple())
                .setStatus(0)
                .build();
        assertThat(ConntrackEvents.invalidReason(event, NOW)).isNull();
        assertThat(ConntrackEvents.invalidReason(
                        ConntrackEvent.newBuilder(event)
                                .setTimeNs(NOW + 50 * YEAR)
                                .build(),
                        NOW))
                .startsWith("time ")
                .contains("more than a day ahead");
        assertThat(ConntrackEvents.invalidReason(
                        ConntrackEvent.newBuilder(event)
                                .setEventTimestampNs(NOW + 50 * YEAR)
                                .build(),
                        NOW))
                .startsWith("event timestamp ")
                .contains("more than a day ahead");
        ConntrackLoss loss = ConntrackLoss.newBuilder()
                .setVantage(new Vantage("host", "conntrack"))
                .setTimeNs(NOW + 50 * YEAR)
                .setEnobufsCount(1)
                .build();
        assertThat(ConntrackEvents.invalidReason(loss, NOW)).contains("more than a day ahead");
        assertThat(ConntrackEvents.invalidReason(
                        ConntrackLoss.newBuilder(loss).setTimeNs(NOW).build(), NOW))
                .isNull();
    }

    private static io.flowtrace.avro.CtTuple tuple() {
        return io.flowtrace.avro.CtTuple.newBuilder()
                .setSrc(ByteBuffer.wrap(new byte[4]))
                .setDst(ByteBuffer.wrap(new byte[4]))
                .setL4Proto(6)
                .setSrcPort(1)
                .setDstPort(2)
                .build();
    }

    private static PacketEvent at(long t) {
        return PacketEvent.newBuilder(GOOD).setCaptureTimeNs(t).build();
    }

    private static PacketEvent withVantage(String agent, String iface) {
        return PacketEvent.newBuilder(GOOD)
                .setVantage(new Vantage(agent, iface))
                .build();
    }
}
