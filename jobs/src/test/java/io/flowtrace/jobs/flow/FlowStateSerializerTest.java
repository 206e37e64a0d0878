package io.flowtrace.jobs.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.FlowStateCodec;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The per-flow state bytes: the current layout round trip, and state an older job wrote (savepoint upgrades). */
class FlowStateSerializerTest {
    private static final FlowStateSerializer SERIALIZER = new FlowStateSerializer(AnalyzerConfig.DEFAULTS);
    private static final Endpoint CLIENT = new Endpoint(new byte[] {10, 0, 0, 1}, 40000);
    private static final Endpoint SERVER = new Endpoint(new byte[] {10, 0, 0, 2}, 443);

    @Test
    void keepsTheVantageAndEveryOperatorField() throws IOException {
        FlowState s = state(new VantagePoint("rack/host", "eth0"));
        FlowState back = roundTrip(s);
        assertThat(back.vantage).isEqualTo(new VantagePoint("rack/host", "eth0"));
        assertThat(back.instance).isEqualTo(1_796_000_000_000_000L);
        assertThat(back.lastSeenNanos).isEqualTo(1_796_000_000_005_000_000L);
        assertThat(back.timerMs).isEqualTo(1_796_000_010_000L);
        assertThat(back.nextUpdateMs).isEqualTo(1_796_000_010_000L);
        assertThat(back.latePackets).isEqualTo(3);
        assertThat(back.events).isEqualTo(7);
        assertThat(back.closeReported).isTrue();
        assertThat(back.clockNanos).isEqualTo(1_796_000_090_000_000_000L);
        assertThat(back.flow.client()).isEqualTo(CLIENT);
        assertThat(back.flow.server()).isEqualTo(SERVER);
    }

    /**
     * A copy (what the heap backend keeps when a checkpoint snapshots state copy-on-write) has every
     * operator field: a copy that lost the expiry clock made flows expire at their first timer after
     * a checkpoint (FailureRecoveryITCase: final records 0.2 s early in the failure-free run).
     */
    @Test
    void aCopyKeepsEveryOperatorField() {
        FlowState s = state(new VantagePoint("rack/host", "eth0"));
        for (FlowState copy : List.of(SERIALIZER.copy(s), SERIALIZER.copy(s, new FlowState()))) {
            assertThat(copy).isNotSameAs(s);
            assertThat(copy.vantage).isEqualTo(s.vantage);
            assertThat(copy.instance).isEqualTo(s.instance);
            assertThat(copy.lastSeenNanos).isEqualTo(1_796_000_000_005_000_000L);
            assertThat(copy.clockNanos).isEqualTo(1_796_000_090_000_000_000L);
            assertThat(copy.timerMs).isEqualTo(s.timerMs);
            assertThat(copy.nextUpdateMs).isEqualTo(s.nextUpdateMs);
            assertThat(copy.latePackets).isEqualTo(3);
            assertThat(copy.events).isEqualTo(7);
            assertThat(copy.closeReported).isTrue();
            assertThat(copy.flow.client()).isEqualTo(CLIENT);
        }
    }

    /**
     * Layout 1 (before the vantage was kept) as the previous FlowStateSerializer wrote it: layout
     * byte 1, the seven operator fields, the analyser's codec bytes. It still reads, without a vantage
     * (the function takes it from the record or the key), and is written back in the current layout.
     */
    @Test
    void readsStateWrittenBeforeTheVantageWasKept() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(1);
        out.writeLong(1_796_000_000_000_000L);
        out.writeLong(1_796_000_000_005_000_000L);
        out.writeLong(FlowState.NO_TIMER);
        out.writeLong(1_796_000_010_000L);
        out.writeLong(0);
        out.writeLong(2);
        out.writeBoolean(false);
        FlowStateCodec.write(analyzer(), out);

        FlowState old = SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(old.vantage).isNull();
        assertThat(old.instance).isEqualTo(1_796_000_000_000_000L);
        assertThat(old.timerMs).isEqualTo(FlowState.NO_TIMER);
        assertThat(old.events).isEqualTo(2);
        assertThat(old.flow.server()).isEqualTo(SERVER);

        FlowState rewritten = roundTrip(old);
        assertThat(rewritten.vantage).isNull();
        assertThat(rewritten.nextUpdateMs).isEqualTo(1_796_000_010_000L);
    }

    /**
     * Layout 2 (vantage kept, no expiry clock) as the previous FlowStateSerializer wrote it: its
     * expiry was measured from the last seen time, so that is the clock it reads back with.
     */
    @Test
    void readsStateWrittenBeforeTheExpiryClockWasKept() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(2);
        out.writeLong(1_796_000_000_000_000L);
        out.writeLong(1_796_000_000_005_000_000L);
        out.writeLong(FlowState.NO_TIMER);
        out.writeLong(1_796_000_010_000L);
        out.writeLong(0);
        out.writeLong(2);
        out.writeBoolean(false);
        out.writeBoolean(true);
        out.writeUTF("rack/host");
        out.writeUTF("eth0");
        FlowStateCodec.write(analyzer(), out);

        FlowState old = SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(old.vantage).isEqualTo(new VantagePoint("rack/host", "eth0"));
        assertThat(old.lastSeenNanos).isEqualTo(1_796_000_000_005_000_000L);
        assertThat(old.clockNanos).isEqualTo(1_796_000_000_005_000_000L);
        assertThat(old.flow.server()).isEqualTo(SERVER);
    }

    /**
     * State a job wrote before {@code resets} was counted (layout 3; FlowStateCodec version 4 with 21
     * scalars per direction, where today's writes 22): state/flow-analyzer-before-resets.bin holds the
     * analyser bytes that core wrote at commit e801ec6, the build before resets, for the connection
     * 10.77.1.2:35534 - 10.77.2.2:5201 of testdata/tcp/cubic-loss.sender.pcap.gz at its end (made with
     * that commit's CaptureAnalysis and FlowStateCodec.toBytes, not with this build). The server sent
     * 8 RSTs on it (tshark -Y 'tcp.flags.reset==1': 8 rows, all from 10.77.2.2:5201). Restored, the
     * state has resets 0 on both sides and everything else exactly as today's build analyses the same
     * packets: their codec bytes are equal once today's resets are set to 0.
     */
    @Test
    void readsStateWrittenBeforeResetsWereCounted() throws Exception {
        byte[] analyser;
        try (InputStream in = getClass().getResourceAsStream("/state/flow-analyzer-before-resets.bin")) {
            analyser = in.readAllBytes();
        }
        // version 4, client 10.77.1.2:35534, server 10.77.2.2:5201, not guessed, then 21 scalars
        assertThat(analyser).startsWith(4, 4, 10, 77, 1, 2, 0x8a, 0xce, 4, 10, 77, 2, 2, 0x14, 0x51, 0, 21);
        DataOutputSerializer out = new DataOutputSerializer(2048);
        out.writeByte(3);
        out.writeLong(1_796_004_458_322_092L);
        out.writeLong(1_796_004_468_000_000_000L);
        out.writeLong(1_796_004_478_000L);
        out.writeLong(1_796_004_470_000L);
        out.writeLong(1);
        out.writeLong(12);
        out.writeBoolean(true);
        out.writeBoolean(true);
        out.writeUTF("test");
        out.writeUTF("if0");
        out.writeLong(1_796_004_468_500_000_000L);
        out.write(analyser);

        FlowState old = SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(old.flow.clientToServer().resets).isZero();
        assertThat(old.flow.serverToClient().resets).isZero();
        assertThat(old.vantage).isEqualTo(new VantagePoint("test", "if0"));
        assertThat(old.instance).isEqualTo(1_796_004_458_322_092L);
        assertThat(old.lastSeenNanos).isEqualTo(1_796_004_468_000_000_000L);
        assertThat(old.timerMs).isEqualTo(1_796_004_478_000L);
        assertThat(old.nextUpdateMs).isEqualTo(1_796_004_470_000L);
        assertThat(old.latePackets).isEqualTo(1);
        assertThat(old.events).isEqualTo(12);
        assertThat(old.closeReported).isTrue();
        assertThat(old.clockNanos).isEqualTo(1_796_004_468_500_000_000L);

        TcpFlowAnalyzer today = analysedToday("tcp/cubic-loss.sender.pcap.gz", "10.77.1.2:35534");
        assertThat(today.serverToClient().resets)
                .as("tshark's RST rows from the server")
                .isEqualTo(8);
        assertThat(today.clientToServer().resets).isZero();
        today.serverToClient().resets = 0;
        // FlowStateCodec version 5 appends, per sender, when the current delivery-rate sample's send
        // phase began: a version-4 state has none, restored as -1 (zig-zag varint byte 1) each
        byte[] expected = version4Tail(FlowStateCodec.toBytes(today));
        assertThat(FlowStateCodec.toBytes(old.flow)).isEqualTo(expected);
        // written back in today's layout (22 scalars), it reads the same again
        assertThat(FlowStateCodec.toBytes(roundTrip(old).flow)).isEqualTo(expected);
    }

    /** {@code state} with its last two varints (the version-5 fields) replaced by -1, -1. */
    private static byte[] version4Tail(byte[] state) {
        int end = state.length;
        for (int field = 0; field < 2; field++) {
            end--; // the varint's last byte has the continuation bit clear; earlier ones have it set
            while (end > 0 && (state[end - 1] & 0x80) != 0) {
                end--;
            }
        }
        byte[] out = java.util.Arrays.copyOf(state, end + 2);
        out[end] = 1;
        out[end + 1] = 1;
        return out;
    }

    /** The flow of {@code client} in a committed capture, as this build analyses it offline. */
    private static TcpFlowAnalyzer analysedToday(String capture, String client) throws IOException {
        List<TcpFlowAnalyzer> found = new ArrayList<>();
        TestData.analyse(capture, (key, instance, flow) -> {
            if (flow.client().toString().equals(client)) {
                found.add(flow);
            }
        });
        assertThat(found).as("one flow of %s in %s", client, capture).hasSize(1);
        return found.get(0);
    }

    @Test
    void refusesALayoutFromTheFuture() {
        byte[] bytes = {(byte) (FlowStateSerializer.LAYOUT_VERSION + 1)};
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unknown flow state layout");
    }

    private static FlowState roundTrip(FlowState s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SERIALIZER.serialize(s, out);
        return SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    private static FlowState state(VantagePoint vantage) {
        FlowState s = new FlowState(analyzer(), vantage, 1_796_000_000_000_000L);
        s.lastSeenNanos = 1_796_000_000_005_000_000L;
        s.clockNanos = 1_796_000_090_000_000_000L; // late packets: the watermark at their arrival
        s.timerMs = 1_796_000_010_000L;
        s.nextUpdateMs = 1_796_000_010_000L;
        s.latePackets = 3;
        s.events = 7;
        s.closeReported = true;
        return s;
    }

    private static TcpFlowAnalyzer analyzer() {
        return new TcpFlowAnalyzer(CLIENT, SERVER, false, AnalyzerConfig.DEFAULTS);
    }
}
