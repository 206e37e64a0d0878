package io.flowtrace.cli.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.openvpn.LatencyStats;
import io.flowtrace.core.openvpn.OpenVpnDirectionStats;
import io.flowtrace.core.openvpn.OpenVpnServerTable;
import io.flowtrace.core.openvpn.OpenVpnSession;
import io.flowtrace.core.openvpn.RetransmitCause;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * How {@code flowtrace analyze} prints OpenVPN sessions: one JSON Lines object per session, a text
 * block per session, and the per-server setup table. Field meanings: docs/metrics.md, OpenVPN.
 */
public final class OpenVpnReportWriter {
    private static final JsonFactory JSON = new JsonFactory();

    private OpenVpnReportWriter() {}

    /** The session as one line of JSON (no trailing newline). */
    public static String json(OpenVpnSession s) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("protocol", "openvpn");
            g.writeStringField("vantage", s.vantage());
            g.writeObjectFieldStart("flow");
            g.writeStringField("client", s.client());
            g.writeStringField("server", s.server());
            g.writeEndObject();
            g.writeObjectFieldStart("session");
            g.writeStringField("client_id", s.clientSessionId());
            g.writeStringField("server_id", s.serverSessionId());
            g.writeEndObject();
            g.writeNumberField("first_seen_us", s.firstSeenNanos() / 1000);
            g.writeNumberField("last_seen_us", s.lastSeenNanos() / 1000);
            g.writeObjectFieldStart("setup");
            g.writeBooleanField("completed", s.setupCompleted());
            nullableMicros(g, "setup_us", s.setupNanos());
            g.writeStringField("end", s.setupEnd() == null ? null : s.setupEnd().jsonName());
            nullableMicros(g, "control_exchange_us", s.controlExchangeNanos());
            g.writeEndObject();
            g.writeObjectFieldStart("timeline_us");
            relative(g, "client_reset", s.clientResetNanos(), s);
            relative(g, "server_reset", s.serverResetNanos(), s);
            relative(g, "first_tls", s.firstTlsNanos(), s);
            relative(g, "last_server_control", s.lastServerControlNanos(), s);
            relative(g, "first_data", s.firstDataNanos(), s);
            g.writeEndObject();
            direction(g, "c2s", s.c2s());
            direction(g, "s2c", s.s2c());
            g.writeObjectFieldStart("wire");
            g.writeStringField("transport", s.transport());
            g.writeStringField("wrapping", s.wrapping());
            g.writeNumberField("tls_auth_hmac_bytes", s.tlsAuthHmacBytes());
            g.writeBooleanField("detected", s.wrappingDetected());
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void direction(JsonGenerator g, String name, OpenVpnDirectionStats d) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("control_packets", d.controlPackets());
        g.writeNumberField("ack_only_packets", d.ackOnlyPackets());
        g.writeNumberField("data_packets", d.dataPackets());
        g.writeNumberField("opaque_packets", d.opaquePackets());
        g.writeNumberField("control_payload_bytes", d.controlPayloadBytes());
        g.writeNumberField("retransmits", d.retransmits());
        g.writeObjectFieldStart("retransmits_by_cause");
        for (RetransmitCause c : RetransmitCause.values()) {
            g.writeNumberField(c.jsonName(), d.retransmits(c));
        }
        g.writeEndObject();
        g.writeNumberField("duplicates", d.duplicates());
        g.writeNumberField("late_first_copies", d.lateFirstCopies());
        g.writeNumberField("tcp_retransmits", d.tcpRetransmits());
        longs(g, "retransmit_gaps_us", d.retransmitGapsUs());
        g.writeObjectFieldStart("backoff");
        longs(g, "timeout_gaps_us", d.timeoutGapsUs());
        nullableDouble(g, "initial_us", d.initialTimeoutUs());
        nullableDouble(g, "ratio", d.backoffRatio());
        g.writeEndObject();
        LatencyStats a = d.ackLatencyUs();
        g.writeObjectFieldStart("ack_latency_us");
        g.writeNumberField("samples", a.samples());
        if (a.samples() == 0) {
            g.writeNullField("min");
            g.writeNullField("avg");
            g.writeNullField("max");
        } else {
            g.writeNumberField("min", a.min());
            g.writeNumberField("avg", Math.round(a.mean()));
            g.writeNumberField("max", a.max());
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void longs(JsonGenerator g, String name, List<Long> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (long v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }

    private static void nullableMicros(JsonGenerator g, String name, long nanos) throws IOException {
        if (nanos < 0) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, nanos / 1000);
        }
    }

    private static void nullableDouble(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isNaN(v)) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, Math.round(v * 1000) / 1000.0);
        }
    }

    /** Microseconds after the session's first packet, null if it did not happen. */
    private static void relative(JsonGenerator g, String name, long nanos, OpenVpnSession s) throws IOException {
        nullableMicros(g, name, nanos < 0 ? -1 : nanos - s.firstSeenNanos());
    }

    /** A text block for one session. */
    public static void text(OpenVpnSession s, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "openvpn %s -> %s  session %s/%s  [%s]  %s, %s%n",
                s.client(),
                s.server(),
                s.clientSessionId(),
                s.serverSessionId(),
                s.vantage(),
                s.transport(),
                wrappingText(s));
        out.printf(
                Locale.ROOT,
                "  setup: %s%n",
                s.setupCompleted()
                        ? String.format(
                                Locale.ROOT,
                                "%.3f s (ends at the first %s packet)",
                                s.setupNanos() / 1e9,
                                s.setupEnd() == OpenVpnSession.SetupEnd.DATA ? "data" : "control-exchange ACK")
                        : "not completed");
        textDirection("c2s", s.c2s(), out);
        textDirection("s2c", s.s2c(), out);
    }

    /** "tls-auth (HMAC 20 bytes, detected)", "plain (option)"; "no control packet" without one. */
    public static String wrappingText(OpenVpnSession s) {
        if (s.wrapping() == null) {
            return "no control packet";
        }
        String hmac = s.tlsAuthHmacBytes() > 0 ? "HMAC " + s.tlsAuthHmacBytes() + " bytes, " : "";
        return s.wrapping() + " (" + hmac + (s.wrappingDetected() ? "detected" : "option") + ")";
    }

    private static void textDirection(String name, OpenVpnDirectionStats d, PrintStream out) {
        LatencyStats a = d.ackLatencyUs();
        out.printf(
                Locale.ROOT,
                "  %s: %d control, %d ACK-only, %d data, %d opaque; %d retransmits (timeout %d, early %d, reset answer %d),"
                        + " %d duplicates; gaps %s ms; ACK latency %s%n",
                name,
                d.controlPackets(),
                d.ackOnlyPackets(),
                d.dataPackets(),
                d.opaquePackets(),
                d.retransmits(),
                d.retransmits(RetransmitCause.TIMEOUT),
                d.retransmits(RetransmitCause.EARLY_AFTER_LATER_ACKS),
                d.retransmits(RetransmitCause.RESET_ANSWER),
                d.duplicates(),
                millis(d.retransmitGapsUs()),
                a.samples() == 0
                        ? "-"
                        : String.format(
                                Locale.ROOT,
                                "min/avg/max %.1f/%.1f/%.1f ms (%d)",
                                a.min() / 1e3,
                                a.mean() / 1e3,
                                a.max() / 1e3,
                                a.samples()));
    }

    private static String millis(List<Long> us) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < us.size() && i < 20; i++) {
            b.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", us.get(i) / 1e3));
        }
        return b.append(us.size() > 20 ? " ...]" : "]").toString();
    }

    /** The per-server setup-time table (seconds), or one JSON line per server. */
    public static void servers(List<OpenVpnServerTable.Row> rows, boolean json, PrintStream out) {
        if (json) {
            for (OpenVpnServerTable.Row r : rows) {
                out.println(serverJson(r));
            }
            return;
        }
        out.printf(
                Locale.ROOT,
                "%-22s %8s %9s %8s %8s %8s %8s %8s %8s %8s %8s%n",
                "openvpn server",
                "sessions",
                "completed",
                "mean s",
                "sd s",
                "p50 s",
                "p90 s",
                "p99 s",
                "srv rtx",
                "cli rtx",
                "sync");
        for (OpenVpnServerTable.Row r : rows) {
            out.printf(
                    Locale.ROOT,
                    "%-22s %8d %9d %8.3f %8.3f %8.3f %8.3f %8.3f %8d %8d %8d%n",
                    r.server(),
                    r.sessions(),
                    r.completed(),
                    r.meanUs() / 1e6,
                    r.sdUs() / 1e6,
                    r.p50Us() / 1e6,
                    r.p90Us() / 1e6,
                    r.p99Us() / 1e6,
                    r.serverRetransmits(),
                    r.clientRetransmits(),
                    r.synchronisedRetries());
        }
    }

    static String serverJson(OpenVpnServerTable.Row r) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("protocol", "openvpn");
            g.writeStringField("server", r.server());
            g.writeNumberField("sessions", r.sessions());
            g.writeNumberField("completed", r.completed());
            g.writeObjectFieldStart("setup_us");
            nullableDouble(g, "mean", r.meanUs());
            nullableDouble(g, "sd", r.sdUs());
            nullableDouble(g, "p50", r.p50Us());
            nullableDouble(g, "p90", r.p90Us());
            nullableDouble(g, "p99", r.p99Us());
            g.writeEndObject();
            g.writeNumberField("server_retransmits", r.serverRetransmits());
            g.writeNumberField("client_retransmits", r.clientRetransmits());
            g.writeNumberField("synchronised_retries", r.synchronisedRetries());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
