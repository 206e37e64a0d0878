package io.flowtrace.cli;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code analyze --events} without --json: one readable line per event, like a tcpdump line: time
 * relative to the first event shown, the connection, the direction of the data, the event and its
 * figures with units.
 * Sequence numbers are relative to the sender's ISN, as Wireshark shows them by default.
 */
final class TextEventWriter {
    private final PrintStream out;
    private long originNanos = Long.MIN_VALUE;

    TextEventWriter(PrintStream out) {
        this.out = out;
    }

    /** @param key the flow (its endpoints in address order; the event says which side is the client) */
    void write(FlowKey key, TcpFlowEvent e) {
        if (originNanos == Long.MIN_VALUE) {
            originNanos = e.timeNanos();
            out.printf(
                    Locale.ROOT,
                    "# events: seconds since the first event shown (%s), connection, direction of the data"
                            + " (c2s: client to server), event; sequence numbers relative to the sender's ISN%n",
                    Units.epochMicros(Math.floorDiv(e.timeNanos(), 1000)));
        }
        synchronized (this) {
            out.printf(
                    Locale.ROOT,
                    "%12.6f  %s - %s  %s  %s%n",
                    (e.timeNanos() - originNanos) / 1e9,
                    key.low(),
                    key.high(),
                    e.fromClient() ? "c2s" : "s2c",
                    describe(e));
        }
    }

    static String describe(TcpFlowEvent e) {
        if (e instanceof TcpFlowEvent.Retransmission r) {
            return retransmission(r);
        }
        if (e instanceof TcpFlowEvent.Reordering r) {
            return String.format(
                    Locale.ROOT,
                    "reordering seq %d, %s, filled a hole %s old",
                    r.seq(),
                    Units.bytes(r.bytes()),
                    Units.nanos(r.holeAgeNanos()));
        }
        if (e instanceof TcpFlowEvent.LostSegment l) {
            return String.format(
                    Locale.ROOT,
                    "lost before the capture point: expected seq %d, saw seq %d (%s missing)",
                    l.expectedSeq(),
                    l.seenSeq(),
                    Units.bytes(l.seenSeq() - l.expectedSeq()));
        }
        if (e instanceof TcpFlowEvent.ZeroWindow) {
            return "zero window advertised";
        }
        return timing(e);
    }

    private static String retransmission(TcpFlowEvent.Retransmission r) {
        return String.format(
                Locale.ROOT,
                "retransmission %s (sent by %s) seq %d, %s, transmission %d%s",
                r.retransmissionClass().jsonName(),
                r.trigger().jsonName(),
                r.seq(),
                Units.bytes(r.bytes()),
                r.transmission(),
                r.sinceOriginalNanos() < 0 ? "" : ", " + Units.nanos(r.sinceOriginalNanos()) + " after the original");
    }

    /** The events about the sender's timing and rate: SYN and RTO backoff, rounds, the slow-start exit. */
    private static String timing(TcpFlowEvent e) {
        if (e instanceof TcpFlowEvent.SynRetransmission s) {
            return String.format(
                    Locale.ROOT,
                    "SYN retransmission, attempt %d, %s after the previous",
                    s.attempt(),
                    Units.nanos(s.gapNanos()));
        }
        if (e instanceof TcpFlowEvent.Round r) {
            return String.format(
                    Locale.ROOT,
                    "round %d: flight %s, min RTT %s, delivered %s",
                    r.index(),
                    Units.bytes(r.flightBytes()),
                    Units.nanos(r.minRttNanos()),
                    Units.bytes(r.deliveredBytes()));
        }
        if (e instanceof TcpFlowEvent.SlowStartExit x) {
            return String.format(
                    Locale.ROOT,
                    "slow start exit (%s) at cwnd %s%s",
                    x.reason().jsonName(),
                    Units.bytes(x.cwndBytes()),
                    x.sinceSynNanos() < 0 ? "" : ", " + Units.nanos(x.sinceSynNanos()) + " after the SYN");
        }
        TcpFlowEvent.RtoBackoff b = (TcpFlowEvent.RtoBackoff) e;
        return String.format(
                Locale.ROOT,
                "RTO backoff seq %d, attempt %d, %s after the previous",
                b.seq(),
                b.attempt(),
                Units.nanos(b.gapNanos()));
    }
}
