package io.flowtrace.jobs.conntrack;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.CtnetlinkParseException;
import io.flowtrace.core.conntrack.CtnetlinkParser;
import io.flowtrace.core.conntrack.KernelFeatures;
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
 * {@link #toAvro} is the agent's own mapping (schemas' ConntrackAvroMapper, shared because jobs cannot depend on
 * the agent module): absent = -1/null in core, null in the contract.
 */
public final class ConntrackFixtures {
    public static final List<String> CASES = List.of(
            "v4_plain",
            "v6_plain",
            "v4_mark",
            "v6_mark",
            "v4_zone",
            "v6_zone",
            "v4_zone_mark",
            "v4_nat",
            "v6_nat",
            "v4_xml",
            "v4_nofeat",
            "v6_nofeat",
            "burst");

    private ConntrackFixtures() {}

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

    public static ConntrackMessage parse(byte[] message) {
        return parse(message, ConntrackMessage.ABSENT);
    }

    /** As the raw agent reads it: {@code observedAtNanos} is the receive time (-1: unknown). */
    public static ConntrackMessage parse(byte[] message, long observedAtNanos) {
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

    /** What the agent publishes for a core event (the shared mapper in schemas). */
    public static io.flowtrace.avro.ConntrackEvent toAvro(ConntrackMessage e, Vantage vantage, ConntrackSource source) {
        return io.flowtrace.avro.mapping.ConntrackAvroMapper.toAvro(e, vantage, source);
    }
}
