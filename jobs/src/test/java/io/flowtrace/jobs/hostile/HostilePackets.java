package io.flowtrace.jobs.hostile;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SackBlock;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Every kind of malformed packets-topic record we could think of, each with the stage and a pattern
 * its dead-letter reason must match (written here by hand from the contract, not copied from the
 * code's output). Seeded, so a failing run is reproducible.
 */
final class HostilePackets {
    /** One kind of bad record: how to make the n-th one, the stage and the reason pattern expected. */
    record Kind(String name, String stage, Pattern reason, Function<Random, byte[]> make) {}

    /** A generated bad record: its kind and bytes (null = tombstone). */
    record Bad(Kind kind, byte[] value) {}

    private static final long NS_PER_YEAR = 365L * 86_400 * 1_000_000_000L;
    /** 2026-11-29, inside the recordings' time range. */
    static final long NOW_NS = 1_796_000_000_000_000_000L;

    private HostilePackets() {}

    static List<Kind> kinds() {
        List<Kind> k = new ArrayList<>();
        Pattern any = Pattern.compile(".+", Pattern.DOTALL);
        // ---- records that must not decode (stage DECODE)
        k.add(new Kind("garbage bytes", "DECODE", any, r -> garbage(r, 1 + r.nextInt(400))));
        k.add(new Kind("empty value", "DECODE", any, r -> new byte[0]));
        k.add(new Kind("tombstone", "DECODE", Pattern.compile("null value.*"), r -> null));
        k.add(new Kind("truncated avro", "DECODE", any, r -> {
            byte[] v = encode(valid(r).build());
            return Arrays.copyOf(v, r.nextInt(v.length));
        }));
        k.add(new Kind("wrong fingerprint", "DECODE", Pattern.compile("(?i).*fingerprint.*"), r -> {
            byte[] v = encode(valid(r).build());
            v[2 + r.nextInt(8)] ^= (byte) (1 + r.nextInt(255));
            return v;
        }));
        k.add(new Kind("wrong magic", "DECODE", any, r -> {
            byte[] v = encode(valid(r).build());
            v[r.nextInt(2)] ^= (byte) (1 + r.nextInt(255));
            return v;
        }));
        k.add(new Kind(
                "another contract's record",
                "DECODE",
                Pattern.compile("(?i).*fingerprint.*"),
                r -> vantageRecord("agent-" + r.nextInt(100))));
        k.add(new Kind(
                "json text", "DECODE", any, r -> ("{\"capture_time_ns\": " + r.nextLong() + "}").getBytes(UTF_8)));
        // Avro's readInt takes the 5-byte varint of 2^32-1 and wraps it; validation refuses the result
        k.add(new Kind(
                "payload_length 2^32-1 as a 5-byte varint",
                "VALIDATE",
                Pattern.compile("payload length .* impossible"),
                r -> lie(valid(r).build(), "payload_length", Schema.Type.LONG, 0xffff_ffffL)));
        k.add(new Kind(
                "src_addr claims 2^31-1 bytes",
                "DECODE",
                any,
                r -> lie(valid(r).build(), "src_addr", Schema.Type.LONG, (long) Integer.MAX_VALUE)));
        k.add(new Kind(
                "src_addr claims 2^30 bytes",
                "DECODE",
                any,
                r -> lie(valid(r).build(), "src_addr", Schema.Type.LONG, 1L << 30)));
        k.add(new Kind(
                "src_addr negative length",
                "DECODE",
                any,
                r -> lie(valid(r).build(), "src_addr", Schema.Type.LONG, -1L - r.nextInt(1000))));
        k.add(new Kind(
                "sack_blocks claims 2^30 items",
                "DECODE",
                any,
                r -> lie(valid(r).build(), "sack_blocks", Schema.Type.LONG, 1L << 30)));
        // ---- records that decode but violate the contract (stage VALIDATE)
        k.add(new Kind(
                "ip version not 4/6",
                "VALIDATE",
                Pattern.compile("ip_version .*"),
                r -> encode(valid(r).setIpVersion(pick(r, 0, 1, 5, 7, 15, 255, -4, Integer.MAX_VALUE))
                        .build())));
        k.add(new Kind(
                "address length mismatch",
                "VALIDATE",
                Pattern.compile("address lengths .*"),
                r -> encode(valid(r).setSrcAddr(ByteBuffer.wrap(new byte[pick(r, 0, 3, 5, 16, 255)]))
                        .build())));
        k.add(new Kind(
                "port out of range",
                "VALIDATE",
                Pattern.compile("port out of range.*"),
                r -> encode(valid(r).setDstPort(pick(r, -1, 65_536, 70_000, Integer.MIN_VALUE))
                        .build())));
        k.add(new Kind(
                "seq/ack beyond 32 bits",
                "VALIDATE",
                Pattern.compile("seq/ack outside 32 bits.*"),
                r -> encode(valid(r).setAck(r.nextBoolean() ? -1L : (1L << 32) + r.nextInt(1000))
                        .build())));
        k.add(new Kind(
                "window beyond 16 bits",
                "VALIDATE",
                Pattern.compile("window .* outside 16 bits"),
                r -> encode(valid(r).setWindow(pick(r, -1, 65_536, 1 << 30)).build())));
        k.add(new Kind(
                "negative payload length",
                "VALIDATE",
                Pattern.compile("payload length .* impossible"),
                r -> encode(valid(r).setPayloadLength(-1 - r.nextInt(100_000)).build())));
        k.add(new Kind(
                "payload length 2^32-1 (int -1) or over 64 KiB",
                "VALIDATE",
                Pattern.compile("payload length .* impossible"),
                r -> encode(
                        valid(r).setPayloadLength(r.nextBoolean() ? (int) 0xffff_ffffL : 65_536 + r.nextInt(1 << 20))
                                .build())));
        k.add(new Kind(
                "negative IP total length",
                "VALIDATE",
                Pattern.compile("payload length .* impossible"),
                r -> encode(valid(r).setIpTotalLength(-1 - r.nextInt(1000)).build())));
        k.add(new Kind(
                "tcp flags beyond 9 bits",
                "VALIDATE",
                Pattern.compile("tcp flags .*"),
                r -> encode(valid(r).setTcpFlags(0x200 + r.nextInt(1 << 20)).build())));
        k.add(new Kind(
                "5 to 100 SACK blocks",
                "VALIDATE",
                Pattern.compile("\\d+ SACK blocks .*"),
                r -> encode(valid(r).setSackBlocks(Collections.nCopies(5 + r.nextInt(96), new SackBlock(1L, 2L)))
                        .build())));
        k.add(new Kind(
                "SACK edge beyond 32 bits",
                "VALIDATE",
                Pattern.compile("SACK edge outside 32 bits"),
                r -> encode(valid(r).setSackBlocks(List.of(new SackBlock(-5L, 1L << 33)))
                        .build())));
        k.add(new Kind(
                "mss beyond 16 bits",
                "VALIDATE",
                Pattern.compile("mss .*"),
                r -> encode(valid(r).setMss(pick(r, -2, 65_536, 1 << 24)).build())));
        k.add(new Kind(
                "window scale beyond 8 bits",
                "VALIDATE",
                Pattern.compile("window scale .*"),
                r -> encode(valid(r).setWindowScale(pick(r, -2, 256, 1 << 16)).build())));
        k.add(new Kind(
                "capture time 50 years back",
                "VALIDATE",
                Pattern.compile("capture time .*"),
                r -> encode(valid(r).setCaptureTimeNs(NOW_NS - 50 * NS_PER_YEAR - r.nextInt(1000))
                        .build())));
        k.add(new Kind(
                "capture time 50 years ahead",
                "VALIDATE",
                Pattern.compile("capture time .*"),
                r -> encode(valid(r).setCaptureTimeNs(NOW_NS + 50 * NS_PER_YEAR + r.nextInt(1000))
                        .build())));
        k.add(new Kind(
                "capture time 0, negative or Long.MAX",
                "VALIDATE",
                Pattern.compile("capture time .*"),
                r -> encode(valid(r).setCaptureTimeNs(
                                r.nextBoolean() ? 0L : r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE)
                        .build())));
        k.add(new Kind(
                "negative captured or wire length",
                "VALIDATE",
                Pattern.compile("captured/wire length .*"),
                r -> encode(
                        r.nextBoolean()
                                ? valid(r).setCapturedLength(-1 - r.nextInt(9)).build()
                                : valid(r).setWireLength(Integer.MIN_VALUE).build())));
        k.add(new Kind(
                "ttl beyond 8 bits",
                "VALIDATE",
                Pattern.compile("ttl .*"),
                r -> encode(valid(r).setTtl(pick(r, -1, 256, 100_000)).build())));
        k.add(new Kind(
                "ip id beyond 16 bits",
                "VALIDATE",
                Pattern.compile("ip_id .*"),
                r -> encode(valid(r).setIpId(pick(r, -7, 65_536)).build())));
        k.add(new Kind(
                "timestamp option beyond 32 bits",
                "VALIDATE",
                Pattern.compile("TSval/TSecr .*"),
                r -> encode(valid(r).setTsVal(1L << 32).setTsEcr(-3L).build())));
        k.add(new Kind(
                "empty agent id",
                "VALIDATE",
                Pattern.compile("vantage .*"),
                r -> encode(valid(r).setVantage(new Vantage("", "eth0")).build())));
        k.add(new Kind(
                "NUL or control character in agent id",
                "VALIDATE",
                Pattern.compile("vantage .*"),
                r -> encode(valid(r).setVantage(new Vantage("agent\u0000" + r.nextInt(10), "eth\u00070"))
                        .build())));
        k.add(new Kind(
                "10 KiB agent id",
                "VALIDATE",
                Pattern.compile("vantage .*"),
                r -> encode(valid(r).setVantage(new Vantage("a".repeat(10_240), "eth0"))
                        .build())));
        return k;
    }

    /** {@code total} bad records, kinds round-robin then shuffled (seeded). */
    static List<Bad> generate(int total, long seed) {
        Random r = new Random(seed);
        List<Kind> kinds = kinds();
        List<Bad> out = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            Kind kind = kinds.get(i % kinds.size());
            out.add(new Bad(kind, kind.make().apply(r)));
        }
        Collections.shuffle(out, r);
        return out;
    }

    /** A packet that is valid on its own (a test checks it is), of a vantage no good record uses. */
    static PacketEvent.Builder valid(Random r) {
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(NOW_NS + r.nextInt(1_000_000))
                .setVantage(new Vantage("hostile", "eth0"))
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(new byte[] {10, 66, 0, (byte) r.nextInt(256)}))
                .setDstAddr(ByteBuffer.wrap(new byte[] {10, 66, 1, 1}))
                .setSrcPort(1024 + r.nextInt(60_000))
                .setDstPort(443)
                .setTtl(64)
                .setIpTotalLength(40)
                .setTcpFlags(DecodedPacket.ACK)
                .setSeq(r.nextInt() & 0xffff_ffffL)
                .setAck(r.nextInt() & 0xffff_ffffL)
                .setWindow(100)
                .setCapturedLength(54)
                .setWireLength(54);
    }

    static byte[] encode(PacketEvent e) {
        try {
            return e.toByteBuffer().array();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The record written by a broken producer: its contract's single-object header and fingerprint,
     * but the body written with {@code field} re-typed (e.g. a long where the reader expects bytes,
     * so the varint becomes a length claim of {@code value}).
     */
    static byte[] lie(org.apache.avro.generic.IndexedRecord packet, String field, Schema.Type type, Object value) {
        Schema original = packet.getSchema();
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : original.getFields()) {
            fields.add(
                    f.name().equals(field)
                            ? new Schema.Field(f.name(), Schema.create(type))
                            : new Schema.Field(f, f.schema()));
        }
        Schema liar = Schema.createRecord(original.getName() + "Liar", null, "hostile", false, fields);
        GenericRecord g = new GenericData.Record(liar);
        // nested specific records are IndexedRecords: the generic writer reads them by position
        for (Schema.Field sf : original.getFields()) {
            g.put(sf.name(), sf.name().equals(field) ? value : packet.get(sf.pos()));
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0xC3);
            out.write(0x01);
            out.write(ByteBuffer.allocate(8)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(SchemaNormalization.parsingFingerprint64(original))
                    .array());
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(liar).write(g, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Vantage in single-object encoding: a valid Avro record of a contract this topic does not carry. */
    private static byte[] vantageRecord(String agent) {
        try {
            return new Vantage(agent, "eth0").toByteBuffer().array();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] garbage(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        if (n >= 2 && b[0] == (byte) 0xC3 && b[1] == 0x01) {
            b[0] = 0; // a random single-object header is still garbage, but keep the kind honest
        }
        return b;
    }

    private static int pick(Random r, int... values) {
        return values[r.nextInt(values.length)];
    }
}
