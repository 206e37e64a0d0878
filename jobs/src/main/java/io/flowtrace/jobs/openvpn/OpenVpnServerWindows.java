package io.flowtrace.jobs.openvpn;

import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.OpenVpnSetupStats;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.openvpn.OpenVpnServerTable;
import java.util.List;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * One server's sessions reported in one event-time window → the seed-000 table row, computed by
 * core's {@link OpenVpnServerTable} (the same code as {@code analyze --services}). The window
 * keeps the window's session records until it fires (Flink window state, on the configured
 * backend); sessions are few per server and window.
 */
public final class OpenVpnServerWindows
        extends ProcessWindowFunction<OpenVpnSessionRecord, OpenVpnServerWindow, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
            String key, Context ctx, Iterable<OpenVpnSessionRecord> sessions, Collector<OpenVpnServerWindow> out) {
        OpenVpnServerTable table = new OpenVpnServerTable();
        Vantage vantage = null;
        String server = null;
        for (OpenVpnSessionRecord r : sessions) {
            vantage = r.getVantage();
            server = r.getServer();
            Long setup = r.getSetup().getSetupUs();
            List<Long> times = r.getS2c().getTimeoutRetransmitTimesNs();
            long[] retries = new long[times.size()];
            for (int i = 0; i < retries.length; i++) {
                retries[i] = times.get(i);
            }
            table.add(
                    server,
                    setup == null ? -1 : setup * 1000,
                    r.getS2c().getRetransmits(),
                    r.getC2s().getRetransmits(),
                    retries);
        }
        if (server == null) {
            return;
        }
        OpenVpnServerTable.Row row = table.rows().get(0);
        TimeWindow w = ctx.window();
        out.collect(OpenVpnServerWindow.newBuilder()
                .setWindowStartMs(w.getStart())
                .setWindowEndMs(w.getEnd())
                .setWindowSizeMs(w.getEnd() - w.getStart())
                .setVantage(vantage)
                .setServer(server)
                .setSessions(row.sessions())
                .setCompleted(row.completed())
                .setSetupUs(OpenVpnSetupStats.newBuilder()
                        .setMean(orNull(row.meanUs()))
                        .setSd(orNull(row.sdUs()))
                        .setP50(orNull(row.p50Us()))
                        .setP90(orNull(row.p90Us()))
                        .setP99(orNull(row.p99Us()))
                        .build())
                .setServerRetransmits(row.serverRetransmits())
                .setClientRetransmits(row.clientRetransmits())
                .setSynchronisedRetries(row.synchronisedRetries())
                .build());
    }

    private static Double orNull(double v) {
        return Double.isNaN(v) ? null : v;
    }

    /** Per vantage and server: a session seen at two vantage points is two sessions. */
    public static final class ServerKey implements KeySelector<OpenVpnSessionRecord, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(OpenVpnSessionRecord r) {
            return PacketEvents.vantage(r.getVantage()) + " " + r.getServer();
        }
    }
}
