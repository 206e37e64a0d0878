package io.flowtrace.jobs.conntrack;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.CtnetlinkParseException;
import io.flowtrace.core.conntrack.CtnetlinkParser;
import io.flowtrace.core.testing.ConntrackRecordings;
import java.util.List;

/**
 * Committed real ctnetlink recordings (testdata/conntrack/CASE.nl.bin: [u32 LE length][message]) as
 * raw messages, as core events (CtnetlinkParser) and as the Avro ConntrackEvents an agent publishes.
 * {@link #toAvro} is the agent's own mapping (schemas' ConntrackAvroMapper, shared because jobs cannot depend on
 * the agent module): absent = -1/null in core, null in the contract.
 */
public final class ConntrackFixtures {
    private ConntrackFixtures() {}

    /** The raw messages of a case (core's ConntrackRecordings, shared with core's tests). */
    public static List<byte[]> messages(String name) {
        return ConntrackRecordings.messages(name);
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

    /** What the agent publishes for a core event (the shared mapper in schemas). */
    public static io.flowtrace.avro.ConntrackEvent toAvro(ConntrackMessage e, Vantage vantage, ConntrackSource source) {
        return io.flowtrace.avro.mapping.ConntrackAvroMapper.toAvro(e, vantage, source);
    }
}
