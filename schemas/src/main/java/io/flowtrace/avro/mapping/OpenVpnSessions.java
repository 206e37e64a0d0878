package io.flowtrace.avro.mapping;

import io.flowtrace.avro.OpenVpnAckLatency;
import io.flowtrace.avro.OpenVpnBackoff;
import io.flowtrace.avro.OpenVpnDirection;
import io.flowtrace.avro.OpenVpnRetransmitCauses;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.OpenVpnSessionWire;
import io.flowtrace.avro.OpenVpnSetup;
import io.flowtrace.avro.OpenVpnTimeline;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.openvpn.LatencyStats;
import io.flowtrace.core.openvpn.OpenVpnDirectionStats;
import io.flowtrace.core.openvpn.OpenVpnServerTable;
import io.flowtrace.core.openvpn.OpenVpnSession;
import io.flowtrace.core.openvpn.RetransmitCause;
import java.util.ArrayList;
import java.util.List;

/**
 * Core's {@link OpenVpnSession} as the {@link OpenVpnSessionRecord} contract: the same fields and
 * roundings as a line of {@code flowtrace analyze --json} (docs/metrics.md, OpenVPN sessions), so
 * a job's rows can be compared with the offline report path by path.
 */
public final class OpenVpnSessions {
    private OpenVpnSessions() {}

    public static OpenVpnSessionRecord toAvro(OpenVpnSession s, Vantage vantage) {
        OpenVpnSession.SetupEnd end = s.setupEnd();
        return OpenVpnSessionRecord.newBuilder()
                .setVantage(vantage)
                .setClient(s.client())
                .setServer(s.server())
                .setClientId(s.clientSessionId())
                .setServerId(s.serverSessionId())
                .setFirstSeenUs(s.firstSeenNanos() / 1000)
                .setLastSeenUs(s.lastSeenNanos() / 1000)
                .setSetup(OpenVpnSetup.newBuilder()
                        .setCompleted(s.setupCompleted())
                        .setSetupUs(micros(s.setupNanos()))
                        .setEnd(end == null ? null : end.jsonName())
                        .setControlExchangeUs(micros(s.controlExchangeNanos()))
                        .build())
                .setTimelineUs(OpenVpnTimeline.newBuilder()
                        .setClientReset(relative(s.clientResetNanos(), s))
                        .setServerReset(relative(s.serverResetNanos(), s))
                        .setFirstTls(relative(s.firstTlsNanos(), s))
                        .setLastServerControl(relative(s.lastServerControlNanos(), s))
                        .setFirstData(relative(s.firstDataNanos(), s))
                        .build())
                .setC2s(direction(s.c2s(), new long[0]))
                .setS2c(direction(s.s2c(), OpenVpnServerTable.timerRetryTimes(s)))
                .setWire(OpenVpnSessionWire.newBuilder()
                        .setTransport(s.transport())
                        .setWrapping(s.wrapping())
                        .setTlsAuthHmacBytes(s.tlsAuthHmacBytes())
                        .setDetected(s.wrappingDetected())
                        .build())
                .build();
    }

    /** The Kafka key of a session record: vantage, client, server and first packet (µs). */
    public static String key(OpenVpnSessionRecord r) {
        return PacketEvents.vantage(r.getVantage()) + " " + r.getClient() + " " + r.getServer() + " "
                + r.getFirstSeenUs();
    }

    private static OpenVpnDirection direction(OpenVpnDirectionStats d, long[] timerRetryNanos) {
        LatencyStats a = d.ackLatencyUs();
        List<Long> times = new ArrayList<>(timerRetryNanos.length);
        for (long t : timerRetryNanos) {
            times.add(t);
        }
        return OpenVpnDirection.newBuilder()
                .setControlPackets(d.controlPackets())
                .setAckOnlyPackets(d.ackOnlyPackets())
                .setDataPackets(d.dataPackets())
                .setOpaquePackets(d.opaquePackets())
                .setControlPayloadBytes(d.controlPayloadBytes())
                .setRetransmits(d.retransmits())
                .setRetransmitsByCause(OpenVpnRetransmitCauses.newBuilder()
                        .setTimeout(d.retransmits(RetransmitCause.TIMEOUT))
                        .setEarlyAfterLaterAcks(d.retransmits(RetransmitCause.EARLY_AFTER_LATER_ACKS))
                        .setResetAnswer(d.retransmits(RetransmitCause.RESET_ANSWER))
                        .build())
                .setDuplicates(d.duplicates())
                .setLateFirstCopies(d.lateFirstCopies())
                .setTcpRetransmits(d.tcpRetransmits())
                .setRetransmitGapsUs(new ArrayList<>(d.retransmitGapsUs()))
                .setBackoff(OpenVpnBackoff.newBuilder()
                        .setTimeoutGapsUs(new ArrayList<>(d.timeoutGapsUs()))
                        .setInitialUs(rounded(d.initialTimeoutUs()))
                        .setRatio(rounded(d.backoffRatio()))
                        .build())
                .setAckLatencyUs(OpenVpnAckLatency.newBuilder()
                        .setSamples(a.samples())
                        .setMin(a.samples() == 0 ? null : a.min())
                        .setAvg(a.samples() == 0 ? null : Math.round(a.mean()))
                        .setMax(a.samples() == 0 ? null : a.max())
                        .build())
                .setTimeoutRetransmitTimesNs(times)
                .build();
    }

    private static Long micros(long nanos) {
        return nanos < 0 ? null : nanos / 1000;
    }

    private static Long relative(long nanos, OpenVpnSession s) {
        return nanos < 0 ? null : (nanos - s.firstSeenNanos()) / 1000;
    }

    /** Three decimals, as analyze --json writes them; null for NaN. */
    static Double rounded(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 1000) / 1000.0;
    }
}
