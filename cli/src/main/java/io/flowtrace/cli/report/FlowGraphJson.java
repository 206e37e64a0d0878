package io.flowtrace.cli.report;

import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.tcp.RetransmissionClass;
import java.io.IOException;

/**
 * One flow's graphs as the page's data, columnar and delta-coded so that a flow of 10^6 packets is
 * ≈ 15 bytes a packet and parses in a fraction of a second (docs/BENCHMARKS.md, "Report"). An
 * array marked Δ holds its first value, then each value's difference from the one before; times
 * {@code t_us} are whole microseconds since the flow's first packet. The page rebuilds uPlot's
 * aligned table (segments and ACKs merged in time order) from these columns.
 *
 * <pre>
 * segments        {t_us Δ, seq Δ, flight Δ}  every data segment of the sender: time, relative sequence, bytes in flight
 * retransmissions {index Δ, class}           the segments that were retransmissions (indexes into segments), class ordinals
 * acks            {t_us Δ, ack Δ, window Δ}  every ACK of the receiver: time, relative cumulative ACK, advertised window
 * sack            {t_us Δ, left Δ, width}    every SACK block: time of its ACK, relative left edge, right minus left
 * rounds          {x, rtt_ms, cwnd}          core's RTT rounds: seconds, minimum RTT (ms), largest flight (bytes)
 * throughput      {interval_s, x, bytes}     bytes newly ACKed per interval
 * </pre>
 */
public final class FlowGraphJson {
    private static final String[] CLASS_NAMES = new String[RetransmissionClass.values().length];

    static {
        for (RetransmissionClass c : RetransmissionClass.values()) {
            CLASS_NAMES[c.ordinal()] = c.jsonName();
        }
    }

    private FlowGraphJson() {}

    static void write(JsonGenerator g, FlowGraph f) throws IOException {
        g.writeStartObject();
        g.writeStringField("title", f.flow.title());
        g.writeArrayFieldStart("classes");
        for (String c : CLASS_NAMES) {
            g.writeString(c);
        }
        g.writeEndArray();

        g.writeObjectFieldStart("segments");
        micros(g, "t_us", f, f.segmentNanos);
        deltas(g, "seq", f.segmentSeq);
        deltas(g, "flight", f.segmentFlight);
        g.writeEndObject();
        g.writeObjectFieldStart("retransmissions");
        deltas(g, "index", f.retransmitted);
        plain(g, "class", f.retransmittedClass);
        g.writeEndObject();

        g.writeObjectFieldStart("acks");
        micros(g, "t_us", f, f.ackNanos);
        deltas(g, "ack", f.ackSeq);
        g.writeArrayFieldStart("window");
        long previous = 0;
        for (int i = 0; i < f.ackSeq.size(); i++) {
            long window = f.ackWindowEnd.get(i) - f.ackSeq.get(i);
            g.writeNumber(window - previous);
            previous = window;
        }
        g.writeEndArray();
        g.writeEndObject();

        g.writeObjectFieldStart("sack");
        micros(g, "t_us", f, f.sackNanos);
        deltas(g, "left", f.sackLeft);
        g.writeArrayFieldStart("width");
        for (int i = 0; i < f.sackLeft.size(); i++) {
            g.writeNumber(f.sackRight.get(i) - f.sackLeft.get(i));
        }
        g.writeEndArray();
        g.writeEndObject();

        writeRounds(g, f);
        writeThroughput(g, f);
        if (!Double.isNaN(f.slowStartExitSeconds)) {
            g.writeNumberField("slow_start_exit", seconds(f, f.slowStartExitSeconds));
        }
        g.writeEndObject();
    }

    /** Times as whole microseconds since the flow's first packet, delta-coded. */
    private static void micros(JsonGenerator g, String field, FlowGraph f, LongColumn nanos) throws IOException {
        g.writeArrayFieldStart(field);
        long previous = 0;
        for (int i = 0; i < nanos.size(); i++) {
            long us = Math.round((nanos.get(i) - f.originNanos) / 1e3);
            g.writeNumber(us - previous);
            previous = us;
        }
        g.writeEndArray();
    }

    private static void deltas(JsonGenerator g, String field, LongColumn values) throws IOException {
        g.writeArrayFieldStart(field);
        long previous = 0;
        for (int i = 0; i < values.size(); i++) {
            g.writeNumber(values.get(i) - previous);
            previous = values.get(i);
        }
        g.writeEndArray();
    }

    private static void plain(JsonGenerator g, String field, LongColumn values) throws IOException {
        g.writeArrayFieldStart(field);
        for (int i = 0; i < values.size(); i++) {
            g.writeNumber(values.get(i));
        }
        g.writeEndArray();
    }

    private static void writeRounds(JsonGenerator g, FlowGraph f) throws IOException {
        g.writeObjectFieldStart("rounds");
        g.writeArrayFieldStart("x");
        for (double[] r : f.rounds) {
            g.writeNumber(Math.round(seconds(f, r[0]) * 1e6) / 1e6);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("rtt_ms");
        for (double[] r : f.rounds) {
            if (Double.isNaN(r[2])) {
                g.writeNull();
            } else {
                g.writeNumber(Math.round(r[2] * 1000) / 1000.0);
            }
        }
        g.writeEndArray();
        g.writeArrayFieldStart("cwnd");
        for (double[] r : f.rounds) {
            g.writeNumber((long) r[1]);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** Bytes newly ACKed per interval (the page shows them as Mbit/s over the interval). */
    private static void writeThroughput(JsonGenerator g, FlowGraph f) throws IOException {
        FlowGraph.Throughput t = f.throughput();
        g.writeObjectFieldStart("throughput");
        g.writeNumberField("interval_s", Math.round(t.intervalNanos() / 1e3) / 1e6);
        g.writeArrayFieldStart("x");
        for (int i = 0; i < t.ackedBytes().length; i++) {
            g.writeNumber(Math.round(seconds(f, t.firstNanos() + i * (double) t.intervalNanos()) * 1e6) / 1e6);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("bytes");
        for (long b : t.ackedBytes()) {
            g.writeNumber(b);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    static double seconds(FlowGraph f, double nanos) {
        return (nanos - f.originNanos) / 1e9;
    }
}
