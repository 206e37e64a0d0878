package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.Vantage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PacketBatchHeaderTest {
    private static final long NOW_NS = 1_800_000_000_000_000_000L;

    @Test
    void readsExactlyWhatTheGeneratedDecoderReads() throws Exception {
        Random r = new Random(17);
        for (int i = 0; i < 500; i++) {
            PacketBatch b = randomBatch(r);
            PacketBatchHeader h = PacketBatchHeader.read(bytes(b));

            assertThat(h.agentId).isEqualTo(b.getVantage().getAgentId());
            assertThat(h.interfaceName).isEqualTo(b.getVantage().getInterfaceName());
            assertThat(h.linkType).isEqualTo(b.getLinkType());
            assertThat(h.ipVersion).isEqualTo(b.getIpVersion());
            assertThat(h.lowAddr).isEqualTo(array(b.getLowAddr()));
            assertThat(h.lowPort).isEqualTo(b.getLowPort());
            assertThat(h.highAddr).isEqualTo(array(b.getHighAddr()));
            assertThat(h.highPort).isEqualTo(b.getHighPort());
            assertThat(h.baseTimeNs).isEqualTo(b.getBaseTimeNs());
            assertThat(h.lowSeqBase).isEqualTo(b.getLowSeqBase());
            assertThat(h.highSeqBase).isEqualTo(b.getHighSeqBase());
            assertThat(h.claimedPackets).isEqualTo(b.getPackets().size());
            assertThat(h.flowKey()).isEqualTo(PacketBatches.flowKey(b));
        }
    }

    @Test
    void aRecordCutAnywhereIsMalformedOrHasItsWholeHeader() throws Exception {
        byte[] whole = bytes(randomBatch(new Random(3)));
        PacketBatchHeader full = PacketBatchHeader.read(whole);
        int refused = 0;
        for (int cut = 0; cut < whole.length; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            try {
                PacketBatchHeader h = PacketBatchHeader.read(part);
                // a cut inside the packets leaves the header intact: the flow function's decode refuses it
                assertThat(h.claimedPackets).isEqualTo(full.claimedPackets);
                assertThat(h.flowKey()).isEqualTo(full.flowKey());
            } catch (PacketBatchHeader.MalformedBatchException e) {
                assertThat(e.getMessage()).startsWith("PacketBatch");
                refused++;
            }
        }
        // every cut up to and including the packet count's varint is refused
        assertThat(refused).isGreaterThan(PacketBatchHeader.SINGLE_OBJECT_HEADER_BYTES + 20);
    }

    @Test
    void refusesALengthBeyondTheRecordBeforeAllocatingIt() {
        // 10-byte header, then agent_id claiming 2^30 bytes: zig-zag 2^31 = varint 80 80 80 80 08
        byte[] bomb = new byte[15];
        bomb[0] = (byte) 0xC3;
        bomb[1] = 0x01;
        bomb[10] = (byte) 0x80;
        bomb[11] = (byte) 0x80;
        bomb[12] = (byte) 0x80;
        bomb[13] = (byte) 0x80;
        bomb[14] = 0x08;

        assertThatThrownBy(() -> PacketBatchHeader.read(bomb))
                .isInstanceOf(PacketBatchHeader.MalformedBatchException.class)
                .hasMessage("PacketBatch vantage.agent_id: length 1073741824 claimed, 0 bytes left");
    }

    @Test
    void namesTheReasonForAbsurdHeaders() throws Exception {
        PacketBatch good = randomBatch(new Random(5));
        assertThat(header(good).invalidReason(NOW_NS, PacketBatches.MAX_PACKETS))
                .isNull();

        assertThat(header(PacketBatch.newBuilder(good).setIpVersion(5).build()).invalidReason(NOW_NS, 100))
                .isEqualTo("ip_version 5 is neither 4 nor 6");
        assertThat(header(PacketBatch.newBuilder(good)
                                .setLowAddr(good.getHighAddr())
                                .setHighAddr(good.getLowAddr())
                                .setLowPort(good.getHighPort())
                                .setHighPort(good.getLowPort())
                                .build())
                        .invalidReason(NOW_NS, 100))
                .startsWith("endpoints not in canonical order");
        assertThat(header(PacketBatch.newBuilder(good).setBaseTimeNs(5).build()).invalidReason(NOW_NS, 100))
                .isEqualTo("base capture time 5 ns is not between 2000 and 2100");
        assertThat(header(PacketBatch.newBuilder(good)
                                .setVantage(new Vantage("", "eth0"))
                                .build())
                        .invalidReason(NOW_NS, 100))
                .isEqualTo("vantage without agent_id");
        assertThat(header(good).invalidReason(NOW_NS, good.getPackets().size() - 1))
                .isEqualTo("a batch of " + good.getPackets().size() + " packets (1 to "
                        + (good.getPackets().size() - 1) + " accepted)");
    }

    private static PacketBatchHeader header(PacketBatch b) throws Exception {
        return PacketBatchHeader.read(bytes(b));
    }

    static PacketBatch randomBatch(Random r) {
        boolean v6 = r.nextBoolean();
        byte[] a = new byte[v6 ? 16 : 4];
        byte[] b = new byte[a.length];
        r.nextBytes(a);
        r.nextBytes(b);
        if (Arrays.compareUnsigned(a, b) > 0) {
            byte[] t = a;
            a = b;
            b = t;
        }
        List<BatchedPacket> packets = new ArrayList<>();
        int n = 1 + r.nextInt(40);
        for (int i = 0; i < n; i++) {
            packets.add(BatchedPacket.newBuilder()
                    .setTimeOffsetNs(r.nextInt(100_000_000))
                    .setFromHigh(r.nextBoolean())
                    .setSeqOffset(r.nextInt())
                    .setAckOffset(r.nextInt())
                    .setTtl(64)
                    .setTcpFlags(0x10)
                    .build());
        }
        return PacketBatch.newBuilder()
                .setVantage(new Vantage("host-" + r.nextInt(1000), r.nextBoolean() ? "eth0" : "ens192"))
                .setLinkType(r.nextBoolean() ? 1 : 276)
                .setIpVersion(v6 ? 6 : 4)
                .setLowAddr(ByteBuffer.wrap(a))
                .setLowPort(r.nextInt(65536))
                .setHighAddr(ByteBuffer.wrap(b))
                .setHighPort(r.nextInt(65536))
                .setBaseTimeNs(1_700_000_000_000_000_000L + (r.nextLong() & 0xffff_ffff_ffffL))
                .setLowSeqBase(r.nextLong() & 0xffff_ffffL)
                .setHighSeqBase(r.nextLong() & 0xffff_ffffL)
                .setPackets(packets)
                .build();
    }

    private static byte[] bytes(PacketBatch b) throws Exception {
        return array(b.toByteBuffer());
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
