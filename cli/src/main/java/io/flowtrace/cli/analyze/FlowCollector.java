package io.flowtrace.cli.analyze;

import io.flowtrace.cli.output.ConnectionTable;
import io.flowtrace.cli.output.CsvFlowWriter;
import io.flowtrace.cli.output.InterfaceColumn;
import io.flowtrace.cli.output.JsonReportWriter;
import io.flowtrace.cli.output.TextReportWriter;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.FlowValues;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The flows of one capture on their way to the report. Flows end in the order they end, but are
 * numbered like tcptrace's, by first packet, and printed in that order, or ranked by {@code --sort}
 * (the {@code --top} N only). JSON Lines without --sort/--top are written as each flow ends, as before,
 * so memory stays flat; every other report keeps each flow's rendered text (not its analyser), and
 * {@code --top} only the N best.
 */
public final class FlowCollector {
    enum Format {
        TABLE,
        LONG,
        JSON,
        CSV
    }

    /** The --sort keys, with what they rank by: catalogue fields (FlowFields), but duration (to the nanosecond). */
    enum SortKey {
        RETRANSMITS((v, f) -> FlowFields.bothDirections(v, FlowFields.RETRANSMITTED_PACKETS)),
        BYTES((v, f) -> FlowFields.bothDirections(v, FlowFields.DATA_BYTES)),
        PACKETS((v, f) -> FlowFields.bothDirections(v, FlowFields.PACKETS)),
        DURATION((v, f) -> f.lastSeenNanos() - f.firstSeenNanos()),
        /** The flow's RTT as the catalogue defines it (FlowFields.flowRttUs): the client's data-to-ACK average, else the server's. */
        RTT((v, f) -> nanos(FlowFields.flowRttUs(v))),
        /** First SYN to the handshake's last ACK; flows without a handshake last. */
        SETUP((v, f) -> nanos(v.number(FlowFields.SETUP_US, null)));

        static final String NAMES = "retransmits, bytes, packets, duration, rtt, setup";
        private final Rank rank;

        SortKey(Rank rank) {
            this.rank = rank;
        }

        long rank(FlowKey key, long instance, TcpFlowAnalyzer f) {
            return rank.of(FlowReport.values(key, instance, f), f);
        }

        /** A time in µs as whole ns, -1 when absent: the rank orders flows as the ns figures would. */
        private static long nanos(Number us) {
            return us == null ? -1 : Math.round(us.doubleValue() * 1000);
        }

        private interface Rank {
            long of(FlowValues v, TcpFlowAnalyzer f);
        }

        static SortKey parse(String s) {
            for (SortKey k : values()) {
                if (k.name().equalsIgnoreCase(s)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("--sort must be one of " + NAMES + ", not '" + s + "'");
        }
    }

    private record TableCells(String iface, String[] cells) {}

    private record Entry(long firstSeenNanos, long sequence, long rank, Object payload) {}

    /** Smallest first: the heap's head is the flow --top drops next; the report prints in reverse. */
    private static final Comparator<Entry> RANK = Comparator.comparingLong(Entry::rank)
            .thenComparing(Comparator.comparingLong(Entry::firstSeenNanos).reversed())
            .thenComparing(Comparator.comparingLong(Entry::sequence).reversed());

    private static final Comparator<Entry> FIRST_PACKET =
            Comparator.comparingLong(Entry::firstSeenNanos).thenComparingLong(Entry::sequence);

    private final Format format;
    private final SortKey sort;
    private final Integer top;
    private final PrintStream out;
    private final JsonReportWriter streamingJson;
    private final ByteArrayOutputStream jsonBuffer = new ByteArrayOutputStream(2048);
    private final JsonReportWriter bufferedJson;
    private final TextReportWriter longWriter = new TextReportWriter();
    private final List<Entry> kept = new ArrayList<>();
    private final PriorityQueue<Entry> best = new PriorityQueue<>(RANK);
    private long[] firstSeen = new long[1024];
    private long count;
    /** Whether the capture's flows came from more than one interface. */
    private final InterfaceColumn interfaces = new InterfaceColumn();

    FlowCollector(Format format, SortKey sort, Integer top, PrintStream out, JsonReportWriter json) throws IOException {
        this.format = format;
        this.sort = top != null && sort == null ? SortKey.RETRANSMITS : sort;
        this.top = top;
        this.out = out;
        boolean streaming = format == Format.JSON && this.sort == null;
        this.streamingJson = streaming ? json : null;
        this.bufferedJson = format == Format.JSON && !streaming ? new JsonReportWriter(jsonBuffer) : null;
    }

    /** True when the report is written while the capture is read (so a progress bar would land inside it). */
    boolean streams() {
        return streamingJson != null;
    }

    long flows() {
        return count;
    }

    /**
     * Told of every flow of the capture, shown or not (--host, --port, --top): when they come from more
     * than one vantage (interfaces of a pcapng) the table says which interface each row is from.
     */
    void seen(VantagePoint vantage) {
        interfaces.seen(vantage.interfaceName());
    }

    void add(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        long sequence = count++;
        if (streamingJson != null) {
            streamingJson.write(key, instance, flow);
            return;
        }
        if (sequence == firstSeen.length) {
            firstSeen = Arrays.copyOf(firstSeen, firstSeen.length * 2);
        }
        firstSeen[(int) sequence] = flow.firstSeenNanos();
        long rank = sort == null ? 0 : sort.rank(key, instance, flow);
        if (top != null) {
            // Rank before rendering: a flow that would be dropped at once is not rendered at all.
            if (best.size() == top
                    && RANK.compare(new Entry(flow.firstSeenNanos(), sequence, rank, null), best.peek()) <= 0) {
                return;
            }
            best.add(new Entry(flow.firstSeenNanos(), sequence, rank, render(key, instance, flow)));
            if (best.size() > top) {
                best.poll();
            }
        } else {
            kept.add(new Entry(flow.firstSeenNanos(), sequence, rank, render(key, instance, flow)));
        }
    }

    private Object render(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        switch (format) {
            case TABLE:
                return new TableCells(key.vantage().interfaceName(), ConnectionTable.cells(key, instance, flow));
            case LONG:
                return longWriter.render(key, instance, flow);
            case CSV:
                return CsvFlowWriter.row(key, instance, flow);
            default:
                jsonBuffer.reset();
                bufferedJson.write(key, instance, flow);
                return jsonBuffer.toString(StandardCharsets.UTF_8);
        }
    }

    /** Prints the kept flows (nothing when the report was streamed). */
    void finish() {
        if (streamingJson != null) {
            return;
        }
        List<Entry> shown = new ArrayList<>(top != null ? best : kept);
        shown.sort(sort == null ? FIRST_PACKET : RANK.reversed());
        long[] number = numbersByFirstPacket();
        long origin = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            origin = Math.min(origin, firstSeen[i]);
        }
        List<ConnectionTable.Row> rows = new ArrayList<>();
        if (format == Format.CSV) {
            out.print(CsvFlowWriter.header() + System.lineSeparator());
        }
        for (Entry e : shown) {
            long n = number[(int) e.sequence()];
            switch (format) {
                case TABLE -> {
                    TableCells t = (TableCells) e.payload();
                    rows.add(new ConnectionTable.Row(n, (e.firstSeenNanos() - origin) / 1e9, t.iface(), t.cells()));
                }
                case LONG -> out.print(n + ": " + e.payload() + System.lineSeparator());
                case CSV -> out.print(n + (String) e.payload() + System.lineSeparator());
                default -> out.print((String) e.payload());
            }
        }
        if (format == Format.TABLE) {
            ConnectionTable.print(rows, interfaces.shown(), out);
        }
        if (bufferedJson != null) {
            try {
                bufferedJson.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** number[sequence]: the flow's 1-based place by first packet among every flow of the capture. */
    private long[] numbersByFirstPacket() {
        int n = (int) count;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        long[] seen = firstSeen;
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> seen[i]).thenComparingInt(i -> i));
        long[] number = new long[n];
        for (int rank = 0; rank < n; rank++) {
            number[order[rank]] = rank + 1;
        }
        return number;
    }
}
