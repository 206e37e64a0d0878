package io.flowtrace.cli.output;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code analyze --events} without --json: one readable line per event, like a tcpdump line: time
 * relative to the first event shown, the connection, the direction of the data, the event and its
 * figures with units, in time order.
 * Sequence numbers are relative to the sender's ISN, as Wireshark shows them by default.
 */
public final class TextEventWriter {
    /** One event as it came from a shard: {@code order} is its place in arrival, which within a flow is the flow's own order. */
    private record Entry(long timeNanos, String flow, FlowKey key, long order, TcpFlowEvent event) {}

    private static final Comparator<Entry> TIME_ORDER = Comparator.comparingLong(Entry::timeNanos)
            .thenComparing(Entry::flow)
            .thenComparingLong(Entry::order);

    private final PrintStream out;
    private final List<Entry> entries = new ArrayList<>();

    public TextEventWriter(PrintStream out) {
        this.out = out;
    }

    /**
     * Takes one event; the lines are written by {@link #finish()} in time order. The shards analyse
     * flows side by side and a slow-start exit is dated at the round it ended, found a round later, so
     * the events arrive out of time order (a line at 0.018 s was followed by one at 0.003 s). Held
     * until the end of the input: a few hundred bytes per event, and the events are a small part of
     * the packets (rounds, retransmissions, exits).
     *
     * @param key the flow (its endpoints in address order; the event says which side is the client)
     */
    public synchronized void write(FlowKey key, TcpFlowEvent e) {
        entries.add(new Entry(e.timeNanos(), key.canonical(), key, entries.size(), e));
    }

    /** Writes the events taken so far in time order (ties: by flow, then in the flow's order) and forgets them. */
    public synchronized void finish() {
        if (entries.isEmpty()) {
            return;
        }
        entries.sort(TIME_ORDER);
        long originNanos = entries.get(0).timeNanos();
        out.printf(
                Locale.ROOT,
                "# events: seconds since the first event shown (%s), connection, direction of the data"
                        + " (c2s: client to server), event; sequence numbers relative to the sender's ISN%n",
                Units.epochMicros(Math.floorDiv(originNanos, 1000)));
        for (Entry e : entries) {
            out.printf(
                    Locale.ROOT,
                    "%12.6f  %s - %s  %s  %s%n",
                    (e.timeNanos() - originNanos) / 1e9,
                    e.key().low(),
                    e.key().high(),
                    e.event().fromClient() ? "c2s" : "s2c",
                    describe(e.event()));
        }
        entries.clear();
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
                "retransmission %s seq %d, %s, transmission %d%s",
                // the trigger only where the class is not it: "spurious (sent by fast)", not "fast (sent by fast)"
                r.retransmissionClass().jsonName().equals(r.trigger().jsonName())
                        ? r.retransmissionClass().jsonName()
                        : r.retransmissionClass().jsonName() + " (sent by "
                                + r.trigger().jsonName() + ")",
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
