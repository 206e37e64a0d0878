package io.flowtrace.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Measurement behind the decision not to add a PacketBatch record (docs/schemas.md): bytes per
 * packet and encode time of one single-object message per packet versus a hypothetical
 * PacketBatch {vantage, events[]} single-object message of BATCH packets. The batch's bytes are
 * produced exactly as a generated PacketBatch would write them: the 10-byte header, the vantage,
 * then an Avro array block of PacketEvents whose own vantage is left empty (2 bytes each).
 * Not a test: run with {@code mvn -q -pl schemas test-compile exec:java
 * -Dexec.mainClass=io.flowtrace.avro.PacketEncodingOverhead -Dexec.classpathScope=test}.
 */
public final class PacketEncodingOverhead {

    private static final int PACKETS = 200_000;
    private static final int BATCH = 500;
    private static final int ROUNDS = 7;
    private static final int FLOWS = 1_000;

    private PacketEncodingOverhead() {}

    public static void main(String[] args) throws IOException {
        PacketEvent[] packets = new PacketEvent[PACKETS];
        PacketEvent[] withoutVantage = new PacketEvent[PACKETS];
        Random random = new Random(42);
        long[] nextSeq = new long[FLOWS];
        long time = 1_732_924_800_000_000_000L;
        for (int i = 0; i < PACKETS; i++) {
            // Interleaved flows with their own addresses, ports and sequence numbers, so that the
            // compressed sizes are not flattered by one perfectly regular flow.
            int flow = random.nextInt(FLOWS);
            time += random.nextInt(20_000);
            nextSeq[flow] =
                    nextSeq[flow] == 0 ? random.nextInt() & 0xFFFF_FFFFL : (nextSeq[flow] + 1448) & 0xFFFF_FFFFL;
            packets[i] = PacketEvent.newBuilder(SampleRecords.dataSegment(time, nextSeq[flow]))
                    .setSrcAddr(ByteBuffer.wrap(new byte[] {10, 0, (byte) (flow >> 8), (byte) flow}))
                    .setDstPort(32_768 + flow * 7)
                    .setIpId(random.nextInt(65_536))
                    .setAck(random.nextInt() & 0xFFFF_FFFFL)
                    .setWindow(400 + random.nextInt(200))
                    .setTsVal(random.nextInt() & 0xFFFF_FFFFL)
                    .setTsEcr(random.nextInt() & 0xFFFF_FFFFL)
                    .setSackBlocks(List.of())
                    .build();
            withoutVantage[i] = PacketEvent.newBuilder(packets[i])
                    .setVantage(new Vantage("", ""))
                    .build();
        }
        BinaryMessageEncoder<PacketEvent> single = PacketEvent.getEncoder();
        SpecificDatumWriter<PacketEvent> writer = new SpecificDatumWriter<>(PacketEvent.class);
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);

        long singleBytes = 0;
        long batchBytes = 0;
        double singleNs = Double.MAX_VALUE;
        double batchNs = Double.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            singleBytes = 0;
            for (PacketEvent p : packets) {
                out.reset();
                single.encode(p, out);
                singleBytes += out.size();
            }
            singleNs = Math.min(singleNs, (System.nanoTime() - t0) / (double) PACKETS);

            long t1 = System.nanoTime();
            batchBytes = 0;
            BinaryEncoder encoder = null;
            for (int start = 0; start < PACKETS; start += BATCH) {
                out.reset();
                out.write(header());
                encoder = EncoderFactory.get().directBinaryEncoder(out, encoder);
                encoder.writeString(packets[start].getVantage().getAgentId());
                encoder.writeString(packets[start].getVantage().getInterfaceName());
                encoder.writeArrayStart();
                encoder.setItemCount(BATCH);
                for (int i = start; i < start + BATCH; i++) {
                    encoder.startItem();
                    writer.write(withoutVantage[i], encoder);
                }
                encoder.writeArrayEnd();
                encoder.flush();
                batchBytes += out.size();
            }
            batchNs = Math.min(batchNs, (System.nanoTime() - t1) / (double) PACKETS);
        }

        double[] decodeNs = decodeNs(packets, withoutVantage);

        System.out.printf("packets=%d batch=%d rounds=%d (best round)%n", PACKETS, BATCH, ROUNDS);
        System.out.printf(
                "single-object: %.1f bytes/packet, %.0f ns/packet encode%n", singleBytes / (double) PACKETS, singleNs);
        System.out.printf(
                "PacketBatch:   %.1f bytes/packet, %.0f ns/packet encode%n", batchBytes / (double) PACKETS, batchNs);
        System.out.printf(
                "decode: single-object %.0f ns/packet (BinaryMessageDecoder), %.0f ns/packet (reused BinaryDecoder), PacketBatch %.0f ns/packet%n",
                decodeNs[0], decodeNs[2], decodeNs[1]);
        System.out.printf(
                "Kafka key (flow key) per single-object record: %d bytes%n",
                flowKey(packets[0]).length());
        System.out.printf(
                "gzip of %d messages as Kafka would batch them: single-object + keys %.1f B/packet, PacketBatch %.1f B/packet%n",
                BATCH, gzipPerPacket(packets, false), gzipPerPacket(withoutVantage, true));
    }

    /** Best-round decode time per packet: {single-object, PacketBatch, single-object with a reused decoder}. */
    private static double[] decodeNs(PacketEvent[] packets, PacketEvent[] withoutVantage) throws IOException {
        byte[][] singles = new byte[PACKETS][];
        for (int i = 0; i < PACKETS; i++) {
            ByteArrayOutputStream one = new ByteArrayOutputStream(128);
            PacketEvent.getEncoder().encode(packets[i], one);
            singles[i] = one.toByteArray();
        }
        byte[][] batches = new byte[PACKETS / BATCH][];
        SpecificDatumWriter<PacketEvent> writer = new SpecificDatumWriter<>(PacketEvent.class);
        for (int b = 0; b < batches.length; b++) {
            ByteArrayOutputStream one = new ByteArrayOutputStream(BATCH * 80);
            one.write(header());
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(one, null);
            encoder.writeString("edge-host-01");
            encoder.writeString("eth0");
            encoder.writeArrayStart();
            encoder.setItemCount(BATCH);
            for (int i = b * BATCH; i < (b + 1) * BATCH; i++) {
                encoder.startItem();
                writer.write(withoutVantage[i], encoder);
            }
            encoder.writeArrayEnd();
            encoder.flush();
            batches[b] = one.toByteArray();
        }
        BinaryMessageDecoder<PacketEvent> single = PacketEvent.getDecoder();
        SpecificDatumReader<PacketEvent> reader = new SpecificDatumReader<>(PacketEvent.class);
        double singleNs = Double.MAX_VALUE;
        double batchNs = Double.MAX_VALUE;
        double reusedNs = Double.MAX_VALUE;
        long checksum = 0;
        for (int round = 0; round < ROUNDS; round++) {
            PacketEvent reuse = null;
            long t0 = System.nanoTime();
            for (byte[] message : singles) {
                reuse = single.decode(message, reuse);
                checksum += reuse.getSeq();
            }
            singleNs = Math.min(singleNs, (System.nanoTime() - t0) / (double) PACKETS);
            BinaryDecoder decoder = null;
            long t2 = System.nanoTime();
            for (byte[] message : singles) {
                // The same single-object messages, header checked by hand and one BinaryDecoder
                // reused: what a hot-path deserializer can do instead of BinaryMessageDecoder.
                if (message[0] != (byte) 0xC3 || message[1] != 0x01) {
                    throw new IllegalStateException("bad header");
                }
                decoder = DecoderFactory.get().binaryDecoder(message, 10, message.length - 10, decoder);
                reuse = reader.read(reuse, decoder);
                checksum += reuse.getSeq();
            }
            reusedNs = Math.min(reusedNs, (System.nanoTime() - t2) / (double) PACKETS);
            long t1 = System.nanoTime();
            for (byte[] message : batches) {
                // A real reader checks the 10-byte header as BinaryMessageDecoder does.
                decoder = DecoderFactory.get().binaryDecoder(message, 10, message.length - 10, decoder);
                decoder.readString();
                decoder.readString();
                for (long n = decoder.readArrayStart(); n > 0; n = decoder.arrayNext()) {
                    for (long i = 0; i < n; i++) {
                        reuse = reader.read(reuse, decoder);
                        checksum += reuse.getSeq();
                    }
                }
            }
            batchNs = Math.min(batchNs, (System.nanoTime() - t1) / (double) PACKETS);
        }
        if (checksum == 42) {
            System.out.println(); // keeps the JIT from discarding the decoded values
        }
        return new double[] {singleNs, batchNs, reusedNs};
    }

    /** Single-object header: 0xC3 0x01 and the little-endian CRC-64-AVRO fingerprint (same size for any schema). */
    private static byte[] header() {
        ByteBuffer header = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
        header.put((byte) 0xC3)
                .put((byte) 0x01)
                .putLong(SchemaNormalization.parsingFingerprint64(PacketEvent.getClassSchema()));
        return header.array();
    }

    /** The Kafka key format of docs/schemas.md: vantage, then both endpoints in byte order. */
    static String flowKey(PacketEvent p) {
        String a = endpoint(p.getSrcAddr(), p.getSrcPort());
        String b = endpoint(p.getDstAddr(), p.getDstPort());
        return p.getVantage().getAgentId() + "/" + p.getVantage().getInterfaceName() + " "
                + (a.compareTo(b) <= 0 ? a + " " + b : b + " " + a);
    }

    private static String endpoint(ByteBuffer address, int port) {
        StringBuilder hex = new StringBuilder();
        for (int i = address.position(); i < address.limit(); i++) {
            hex.append(String.format("%02x", address.get(i)));
        }
        return hex + ":" + String.format("%05d", port);
    }

    /** Size after gzip (a Kafka producer codec) of the first BATCH packets, per packet. */
    private static double gzipPerPacket(PacketEvent[] packets, boolean asBatch) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        if (asBatch) {
            raw.write(header());
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(raw, null);
            encoder.writeString("edge-host-01");
            encoder.writeString("eth0");
            encoder.writeArrayStart();
            encoder.setItemCount(BATCH);
            SpecificDatumWriter<PacketEvent> writer = new SpecificDatumWriter<>(PacketEvent.class);
            for (int i = 0; i < BATCH; i++) {
                encoder.startItem();
                writer.write(packets[i], encoder);
            }
            encoder.writeArrayEnd();
            encoder.flush();
        } else {
            // Each single-object message also carries its Kafka key (the canonical flow key):
            // Kafka compresses keys and values of a producer batch together.
            for (int i = 0; i < BATCH; i++) {
                raw.write(flowKey(packets[i]).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                PacketEvent.getEncoder().encode(packets[i], raw);
            }
        }
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
            raw.writeTo(gzip);
        }
        return zipped.size() / (double) BATCH;
    }
}
