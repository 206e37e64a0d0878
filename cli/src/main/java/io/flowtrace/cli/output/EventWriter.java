package io.flowtrace.cli.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** Writes TCP events as JSON Lines ({@code "event": kind}); docs/metrics.md lists the kinds. */
public final class EventWriter {
    private final JsonGenerator json;
    private final OutputStream out;

    public EventWriter(OutputStream out) throws IOException {
        this.out = out;
        this.json = new JsonFactory().createGenerator(out);
        json.setRootValueSeparator(null); // JSON Lines: Jackson would put a space before every object after the first
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    public void write(FlowKey key, long instance, TcpFlowEvent e) {
        try {
            json.writeStartObject();
            json.writeStringField("event", kind(e));
            json.writeObjectFieldStart("flow");
            json.writeStringField("key", key.canonical());
            json.writeStringField("vantage", key.vantage().toString());
            json.writeNumberField("instance", instance);
            json.writeEndObject();
            json.writeNumberField("time_us", Math.floorDiv(e.timeNanos(), 1000));
            json.writeStringField("direction", e.fromClient() ? "c2s" : "s2c");
            if (e instanceof TcpFlowEvent.Retransmission r) {
                json.writeStringField("class", r.retransmissionClass().jsonName());
                json.writeStringField("trigger", r.trigger().jsonName());
                json.writeNumberField("seq", r.seq());
                json.writeNumberField("bytes", r.bytes());
                json.writeNumberField(
                        "since_original_us", r.sinceOriginalNanos() < 0 ? -1 : r.sinceOriginalNanos() / 1000);
                json.writeNumberField("transmission", r.transmission());
            } else if (e instanceof TcpFlowEvent.Reordering r) {
                json.writeNumberField("seq", r.seq());
                json.writeNumberField("bytes", r.bytes());
                json.writeNumberField("hole_age_us", r.holeAgeNanos() / 1000);
            } else if (e instanceof TcpFlowEvent.LostSegment l) {
                json.writeNumberField("expected_seq", l.expectedSeq());
                json.writeNumberField("seen_seq", l.seenSeq());
            } else if (e instanceof TcpFlowEvent.Round r) {
                json.writeNumberField("round", r.index());
                json.writeNumberField("flight_bytes", r.flightBytes());
                json.writeNumberField("min_rtt_us", r.minRttNanos() < 0 ? -1 : r.minRttNanos() / 1000.0);
                json.writeNumberField("delivered_bytes", r.deliveredBytes());
            } else if (e instanceof TcpFlowEvent.SlowStartExit x) {
                json.writeStringField("reason", x.reason().jsonName());
                json.writeNumberField("cwnd_bytes", x.cwndBytes());
                json.writeNumberField("since_syn_us", x.sinceSynNanos() < 0 ? -1 : x.sinceSynNanos() / 1000);
            } else if (e instanceof TcpFlowEvent.RtoBackoff b) {
                json.writeNumberField("seq", b.seq());
                json.writeNumberField("attempt", b.attempt());
                json.writeNumberField("gap_us", b.gapNanos() / 1000);
            } else if (e instanceof TcpFlowEvent.SynRetransmission sr) {
                json.writeNumberField("attempt", sr.attempt());
                json.writeNumberField("gap_us", sr.gapNanos() / 1000);
            }
            json.writeEndObject();
            json.flush();
            out.write('\n');
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The event's name in JSON (docs/metrics.md, events), one per event type. */
    private static final Map<Class<? extends TcpFlowEvent>, String> KINDS = Map.of(
            TcpFlowEvent.Retransmission.class, "retransmission",
            TcpFlowEvent.Reordering.class, "reordering",
            TcpFlowEvent.LostSegment.class, "lost_segment",
            TcpFlowEvent.ZeroWindow.class, "zero_window",
            TcpFlowEvent.Round.class, "round",
            TcpFlowEvent.SlowStartExit.class, "slow_start_exit",
            TcpFlowEvent.RtoBackoff.class, "rto_backoff",
            TcpFlowEvent.SynRetransmission.class, "syn_retransmission");

    static String kind(TcpFlowEvent e) {
        return KINDS.get(e.getClass());
    }
}
