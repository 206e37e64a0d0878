package io.flowtrace.jobs.hostile;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.CtTuple;
import io.flowtrace.avro.Vantage;
import io.flowtrace.jobs.hostile.HostilePackets.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Malformed records of the conntrack topic (ConntrackEvent and ConntrackLoss share it, told apart by
 * fingerprint), each kind with its stage and a hand-written reason pattern, like {@link HostilePackets}.
 */
final class HostileConntrack {
    private static final long YEAR = 365L * 86_400 * 1_000_000_000L;

    private HostileConntrack() {}

    static List<Kind> kinds() {
        List<Kind> k = new ArrayList<>();
        Pattern any = Pattern.compile(".+", Pattern.DOTALL);
        k.add(new Kind("ct garbage bytes", "DECODE", any, r -> {
            byte[] b = new byte[1 + r.nextInt(300)];
            r.nextBytes(b);
            b[0] = 0;
            return b;
        }));
        k.add(new Kind("ct empty value", "DECODE", any, r -> new byte[0]));
        k.add(new Kind("ct tombstone", "DECODE", any, r -> null));
        k.add(new Kind("ct truncated avro", "DECODE", any, r -> {
            byte[] v = encode(valid(r).build());
            return Arrays.copyOf(v, 10 + r.nextInt(v.length - 10));
        }));
        k.add(new Kind("ct wrong fingerprint", "DECODE", any, r -> {
            byte[] v = encode(valid(r).build());
            v[2 + r.nextInt(8)] ^= (byte) (1 + r.nextInt(255));
            return v;
        }));
        k.add(new Kind(
                "ct packet record on the conntrack topic",
                "DECODE",
                any,
                r -> HostilePackets.encode(HostilePackets.valid(r).build())));
        k.add(new Kind(
                "ct attribute_types claims 2^30 items",
                "DECODE",
                any,
                r -> HostilePackets.lie(valid(r).build(), "attribute_types", Schema.Type.LONG, 1L << 30)));
        k.add(new Kind(
                "ct event type UNKNOWN",
                "VALIDATE",
                Pattern.compile("event_type .*"),
                r -> encode(valid(r).setEventType(ConntrackEventType.UNKNOWN).build())));
        k.add(new Kind(
                "ct NUL in agent id",
                "VALIDATE",
                Pattern.compile("vantage .*"),
                r -> encode(valid(r).setVantage(new Vantage("ct\u0000", "conntrack"))
                        .build())));
        k.add(new Kind(
                "ct time 50 years back",
                "VALIDATE",
                Pattern.compile("time .* not between 2000 and 2100"),
                r -> encode(
                        valid(r).setTimeNs(HostilePackets.NOW_NS - 50 * YEAR).build())));
        k.add(new Kind(
                "ct time 50 years ahead",
                "VALIDATE",
                Pattern.compile("time .* more than a day ahead.*"),
                r -> encode(
                        valid(r).setTimeNs(HostilePackets.NOW_NS + 50 * YEAR).build())));
        k.add(new Kind(
                "ct l3_proto not 2/10",
                "VALIDATE",
                Pattern.compile("l3_proto .*"),
                r -> encode(valid(r).setL3Proto(3 + r.nextInt(7)).build())));
        k.add(new Kind(
                "ct l4_proto beyond 8 bits",
                "VALIDATE",
                Pattern.compile("l4_proto .*"),
                r -> encode(valid(r).setL4Proto(256 + r.nextInt(1000)).build())));
        k.add(new Kind(
                "ct tuple address of 16 bytes in IPv4",
                "VALIDATE",
                Pattern.compile("(?i).*orig.*"),
                r -> encode(valid(r).setOrig(tuple(new byte[16], 1000)).build())));
        k.add(new Kind(
                "ct tuple port 70000",
                "VALIDATE",
                Pattern.compile("(?i).*orig.*"),
                r -> encode(valid(r).setOrig(tuple(new byte[] {10, 0, 0, 1}, 70_000))
                        .build())));
        k.add(new Kind(
                "ct status beyond 32 bits",
                "VALIDATE",
                Pattern.compile("status .*"),
                r -> encode(valid(r).setStatus(1L << 33).build())));
        k.add(new Kind(
                "ct zone beyond 16 bits",
                "VALIDATE",
                Pattern.compile("zone .*"),
                r -> encode(valid(r).setZone(70_000).build())));
        k.add(new Kind(
                "ct wire_size not a netlink length",
                "VALIDATE",
                Pattern.compile("wire_size .*"),
                r -> encode(valid(r).setWireSize(r.nextBoolean() ? 21 : 1 << 20).build())));
        k.add(new Kind(
                "ct attribute type 99",
                "VALIDATE",
                Pattern.compile("attribute type .*"),
                r -> encode(valid(r).setAttributeTypes(List.of(99)).build())));
        k.add(new Kind(
                "ct loss with negative count",
                "VALIDATE",
                Pattern.compile("ConntrackLoss: enobufs_count .*"),
                r -> encode(ConntrackLoss.newBuilder()
                        .setVantage(new Vantage("hostile-ct", "conntrack"))
                        .setTimeNs(HostilePackets.NOW_NS)
                        .setEnobufsCount(-1 - r.nextInt(100))
                        .setSource(ConntrackSource.NETLINK)
                        .build())));
        return k;
    }

    static ConntrackEvent.Builder valid(Random r) {
        return ConntrackEvent.newBuilder()
                .setEventType(ConntrackEventType.NEW)
                .setTimeNs(HostilePackets.NOW_NS + r.nextInt(1_000_000))
                .setVantage(new Vantage("hostile-ct", "conntrack"))
                .setL3Proto(2)
                .setL4Proto(6)
                .setOrig(tuple(new byte[] {10, 0, 0, (byte) r.nextInt(256)}, 1024 + r.nextInt(60_000)))
                .setReply(tuple(new byte[] {10, 0, 0, 2}, 443))
                .setStatus(0)
                .setSource(ConntrackSource.CONNTRACK_TOOL);
    }

    private static CtTuple tuple(byte[] src, int port) {
        return CtTuple.newBuilder()
                .setSrc(ByteBuffer.wrap(src))
                .setDst(ByteBuffer.wrap(new byte[src.length]))
                .setL4Proto(6)
                .setSrcPort(port)
                .setDstPort(443)
                .build();
    }

    static byte[] encode(SpecificRecordBase record) {
        try {
            if (record instanceof ConntrackEvent e) {
                return e.toByteBuffer().array();
            }
            return ((ConntrackLoss) record).toByteBuffer().array();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] key(String kind, int i) {
        return ("hostile|" + kind + "|" + i).getBytes(UTF_8);
    }
}
