package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.mapping.AvroFlowValues;
import io.flowtrace.avro.mapping.FlowRecordEncoder;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowValues;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One version of a flow instance's summary, as the flow function emits it to the Kafka flows topic,
 * the windows and the conntrack join: the Kafka value already encoded (the FlowRecord contract's
 * single-object bytes, written from the walk by {@link FlowRecordEncoder}, no {@link FlowRecord} on
 * the hot path), the identity and the few typed values the keys and the join read, and for the
 * final version the windows' inputs ({@link WindowInputs}). The PostgreSQL row and its report JSON
 * are a side output of their own ({@link FlowRow}), built only for the versions the output policy
 * writes. A Flink POJO (public fields, no-arg constructor).
 */
public final class FlowSummary {
    /** The Kafka flows value: single-object encoded FlowRecord (docs/schemas.md). */
    public byte[] value;
    /** {@code agent/interface} ({@link VantagePoint#text}). */
    public String vantage;

    public String agentId;
    public String interfaceName;
    public String client;
    public String server;
    public long instance;
    public long firstSeenUs;
    public long lastSeenUs;
    public long c2sPackets;
    public long s2cPackets;
    /** Event time of this version (the record's record_time_us). */
    public long recordTimeUs;
    /** Packets that arrived behind the watermark; analysed all the same (Kafka order within a flow). */
    public long latePackets;
    /** True for the last version: the flow ended (closed and lingered, idle, replaced, or end of input). */
    public boolean finalRecord;
    /** What the windows fold of the flow: on the final version only, else null. */
    public WindowInputs window;

    public FlowSummary() {}

    /** The version the encoder holds after {@code FlowRecords.encode}. */
    static FlowSummary of(
            FlowRecordEncoder encoded, VantagePoint vantage, long recordTimeUs, long latePackets, boolean finalRecord) {
        FlowSummary s = new FlowSummary();
        s.value = encoded.value();
        s.identity(encoded, vantage.agentId(), vantage.interfaceName());
        s.recordTimeUs = recordTimeUs;
        s.latePackets = latePackets;
        s.finalRecord = finalRecord;
        s.window = finalRecord ? WindowInputs.of(encoded) : null;
        return s;
    }

    /**
     * A version from a FlowRecord (tests, and readers of the contract): its bytes from the shared
     * codec, its typed values read from the record by path ({@link AvroFlowValues}).
     */
    public static FlowSummary of(FlowRecord record, long latePackets, boolean finalRecord) {
        FlowSummary s = new FlowSummary();
        s.value = SingleObjectCodec.of(FlowRecord.class).encode(record);
        s.identity(
                new AvroFlowValues(record),
                record.getFlow().getVantage().getAgentId(),
                record.getFlow().getVantage().getInterfaceName());
        s.recordTimeUs = record.getRecordTimeUs();
        s.latePackets = latePackets;
        s.finalRecord = finalRecord;
        s.window = finalRecord ? WindowInputs.of(new AvroFlowValues(record)) : null;
        return s;
    }

    private void identity(FlowValues v, String agent, String iface) {
        agentId = agent;
        interfaceName = iface;
        vantage = VantagePoint.text(agent, iface);
        client = (String) v.value(FlowFields.CLIENT, null);
        server = (String) v.value(FlowFields.SERVER, null);
        instance = v.integer(FlowFields.INSTANCE, null);
        firstSeenUs = v.integer(FlowFields.FIRST_SEEN, null);
        lastSeenUs = v.integer(FlowFields.LAST_SEEN, null);
        c2sPackets = v.integer(FlowFields.PACKETS, FlowField.Side.C2S);
        s2cPackets = v.integer(FlowFields.PACKETS, FlowField.Side.S2C);
    }

    /** The Kafka key of the flow's records: {@code agent/interface client server instance} (docs/schemas.md). */
    public String kafkaKey() {
        return vantage + " " + client + " " + server + " " + instance;
    }

    /** The record this version's value encodes, decoded (for tests and tools; the job does not). */
    public FlowRecord record() {
        try {
            return SingleObjectCodec.of(FlowRecord.class).decode(value);
        } catch (IOException e) {
            throw new UncheckedIOException("decoding a flow version", e);
        }
    }

    @Override
    public String toString() {
        return (finalRecord ? "final " : "update ") + kafkaKey() + " at " + recordTimeUs;
    }
}
