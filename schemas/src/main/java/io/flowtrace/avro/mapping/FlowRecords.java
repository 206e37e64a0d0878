package io.flowtrace.avro.mapping;

import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportJson;
import io.flowtrace.report.ReportVisitor;
import io.flowtrace.report.TeeVisitor;

/**
 * Builds the {@link FlowRecord} contract from core's {@link FlowReport} walk, so the Avro record,
 * the {@code analyze --json} line and the PostgreSQL report column come from one definition.
 */
public final class FlowRecords {
    private FlowRecords() {}

    /**
     * @param recordTimeUs event time of this version of the record (orders the updates of a flow)
     */
    public static FlowRecord of(FlowKey key, long instance, TcpFlowAnalyzer flow, long recordTimeUs) {
        return version(key, instance, flow, recordTimeUs, false).record();
    }

    /**
     * One version of a flow as the job emits it: its record and, when {@code withJson}, its {@code
     * analyze --json} text ({@link ReportJson}) from the same walk of the analyser; the record is
     * the one {@link #of} builds, the text the one {@link ReportJson#of(FlowKey, long,
     * TcpFlowAnalyzer)} writes (FlowRecordsTest).
     */
    public static Version version(
            FlowKey key, long instance, TcpFlowAnalyzer flow, long recordTimeUs, boolean withJson) {
        return version(key, instance, flow, recordTimeUs, withJson, null);
    }

    /**
     * As {@link #version(FlowKey, long, TcpFlowAnalyzer, long, boolean)}, handing every field of the
     * same walk to {@code alongside} too when it is not null (the job's PostgreSQL row).
     */
    public static Version version(
            FlowKey key,
            long instance,
            TcpFlowAnalyzer flow,
            long recordTimeUs,
            boolean withJson,
            ReportVisitor alongside) {
        // An empty record, not the builder's: build() deep-copies the schema default of every field
        // (26 % of the job's task thread on short connections, docs/BENCHMARKS.md). The walk sets
        // every field of the contract but the contract-only ones (FlowFields.CONTRACT_ONLY): the
        // record time, set below, and ts_rtt_us.stdev, whose default is null, as it is here.
        FlowRecord record = new FlowRecord();
        String json = walk(key, instance, flow, new ReportToAvro(record), alongside, withJson);
        record.getFlow().setVantage(PacketEvents.toAvro(key.vantage()));
        record.setRecordTimeUs(recordTimeUs);
        return new Version(record, json);
    }

    /**
     * One version of a flow as the job emits it, without a {@link FlowRecord}: the walk goes into
     * {@code into} ({@link FlowRecordEncoder}, reset first), whose {@link FlowRecordEncoder#value()}
     * is then the Kafka value {@link #version} and the shared codec write for the same version (the
     * same bytes: FlowRecordEncoderTest), and whose typed values answer the windows and the keys.
     * Every field of the same walk goes to {@code alongside} too when it is not null.
     *
     * @return the version's {@code analyze --json} text when {@code withJson}, else null
     */
    public static String encode(
            FlowRecordEncoder into,
            FlowKey key,
            long instance,
            TcpFlowAnalyzer flow,
            long recordTimeUs,
            boolean withJson,
            ReportVisitor alongside) {
        into.reset();
        String json = walk(key, instance, flow, into, alongside, withJson);
        into.finish(key.vantage(), recordTimeUs);
        return json;
    }

    /** One walk of the analyser into {@code first} (and {@code alongside}); the JSON text when asked for, else null. */
    private static String walk(
            FlowKey key,
            long instance,
            TcpFlowAnalyzer flow,
            ReportVisitor first,
            ReportVisitor alongside,
            boolean withJson) {
        ReportVisitor v = alongside == null ? first : new TeeVisitor(first, alongside);
        if (withJson) {
            return ReportJson.of(key, instance, flow, v);
        }
        FlowReport.visit(key, instance, flow, v);
        return null;
    }

    /** A flow version's record and its {@code analyze --json} text (null when not asked for). */
    public record Version(FlowRecord record, String reportJson) {}

    /** The Kafka key of a flow's records and events: {@code agent/interface client server instance} (docs/schemas.md). */
    public static String identityKey(FlowIdentity flow) {
        return PacketEvents.vantage(flow.getVantage()) + " " + flow.getClient() + " " + flow.getServer() + " "
                + flow.getInstance();
    }
}
