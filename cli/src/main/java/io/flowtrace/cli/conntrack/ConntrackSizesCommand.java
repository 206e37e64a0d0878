package io.flowtrace.cli.conntrack;

import io.flowtrace.cli.console.FlowtraceVersion;
import io.flowtrace.core.conntrack.BudgetConfig;
import io.flowtrace.core.conntrack.BudgetReport;
import io.flowtrace.core.conntrack.ConntrackLineParser;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.ConntrackTextParseException;
import io.flowtrace.core.conntrack.ConntrackTuple;
import io.flowtrace.core.conntrack.EventSizeBudget;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NetlinkSizer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code flowtrace conntrack sizes}: per event of {@code conntrack -E -o timestamp,extended,id,ktimestamp}
 * (text or XML) its exact netlink message size, the kernel's static estimate and the receive-buffer
 * charge, then the budget (docs/conntrack.md).
 */
@Command(
        name = "sizes",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        sortOptions = false,
        description = {
            "Exact ctnetlink message size, kernel estimate and truesize of each conntrack -E event.",
            "  conntrack -E -o timestamp,extended,id,ktimestamp | flowtrace conntrack sizes -",
            "  flowtrace conntrack sizes --json events.txt.gz      (JSON Lines, the budget on the last line)",
            ""
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every line was read (lines that are not events, e.g. conntrack's banner, are skipped)",
            "1:the input could not be read, is not conntrack -E text, or has unreadable lines",
            "2:invalid command line (unknown option, bad option value)"
        })
public final class ConntrackSizesCommand implements Callable<Integer> {
    private static final int MAX_ERRORS_SHOWN = 10;
    private static final String NAME = "flowtrace conntrack sizes";

    @Spec
    CommandSpec spec;

    @Parameters(
            paramLabel = "FILE",
            description = "conntrack -E output (text or -o xml, gzip-compressed or not); - reads standard input")
    String file;

    @Option(
            names = "--json",
            description = "one JSON object per event per line: kind, id, exact_bytes, estimated_bytes, truesize_bytes")
    boolean json;

    @Mixin
    KernelFeatureOptions kernel;

    @Option(
            names = "--rcvbuf",
            paramLabel = "BYTES",
            defaultValue = "2097152",
            description = "listener SO_RCVBUF request for the budget (default: ${DEFAULT-VALUE}, conntrackd's)")
    int rcvbuf;

    @Option(
            names = "--drain-latency-ms",
            paramLabel = "MS",
            defaultValue = "100",
            description = "the listener's worst stall between reads (default: ${DEFAULT-VALUE})")
    long drainLatencyMs;

    private void validate() {
        if (rcvbuf <= 0) {
            throw new ParameterException(
                    spec.commandLine(), "--rcvbuf must be a positive number of bytes, not " + rcvbuf);
        }
        if (kernel.secctxLength < 0) {
            throw new ParameterException(
                    spec.commandLine(), "--secctx-length must be 0 or more, not " + kernel.secctxLength);
        }
        if (drainLatencyMs < 0) {
            throw new ParameterException(
                    spec.commandLine(), "--drain-latency-ms must be 0 or more, not " + drainLatencyMs);
        }
    }

    @Override
    public Integer call() throws IOException {
        validate();
        KernelFeatures features = kernel.features();
        NetlinkSizer sizer = new NetlinkSizer();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader opened;
        try {
            opened = ConntrackTextInput.open(file);
        } catch (ConntrackTextInput.NotTextException e) {
            System.err.println(NAME + ": \"" + file + "\"" + e.getMessage());
            return 1;
        }
        Read read = new Read(features, sizer, out);
        try (BufferedReader in = opened) {
            read.all(in);
        } catch (CharacterCodingException e) {
            out.flush();
            System.err.printf(
                    Locale.ROOT,
                    "%s: \"%s\": line %,d is not text: this is not conntrack -E output%n",
                    NAME,
                    file,
                    read.lines + 1);
            return 1;
        }
        if (read.errors > MAX_ERRORS_SHOWN) {
            System.err.printf(
                    Locale.ROOT, "%s: \"%s\": %,d more unreadable lines%n", NAME, file, read.errors - MAX_ERRORS_SHOWN);
        }
        if (read.events.isEmpty() && read.errors > 0) {
            System.err.printf(
                    Locale.ROOT, "%s: \"%s\": none of its %,d lines is a conntrack -E event%n", NAME, file, read.lines);
        }
        BudgetReport budget = budget(read.events, features, sizer);
        if (json) {
            if (budget != null) {
                out.println(budgetJson(budget));
            }
        } else {
            printBudget(out, budget);
        }
        out.flush();
        return read.errors > 0 ? 1 : 0;
    }

    /** One pass over the input: each event's row as it is parsed, the events kept for the budget. */
    private final class Read {
        final List<ConntrackMessage> events = new ArrayList<>();
        private final ConntrackLineParser parser;
        private final KernelFeatures features;
        private final NetlinkSizer sizer;
        private final PrintStream out;
        long lines;
        long errors;

        Read(KernelFeatures features, NetlinkSizer sizer, PrintStream out) {
            this.parser = new ConntrackLineParser(features);
            this.features = features;
            this.sizer = sizer;
            this.out = out;
        }

        void all(BufferedReader in) throws IOException {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines++;
                ConntrackMessage e;
                try {
                    e = parser.parseLine(line, lines);
                } catch (ConntrackTextParseException ex) {
                    if (++errors <= MAX_ERRORS_SHOWN) {
                        System.err.println(NAME + ": \"" + file + "\": " + ex.getMessage());
                    }
                    continue;
                }
                if (e != null) {
                    row(e);
                }
            }
        }

        private void row(ConntrackMessage e) {
            if (events.isEmpty() && !json) {
                out.printf(
                        Locale.ROOT,
                        "%-8s %12s %12s %16s %15s  %s%n",
                        "kind",
                        "id",
                        "exact_bytes",
                        "estimated_bytes",
                        "truesize_bytes",
                        "tuple (original direction)");
            }
            events.add(e);
            int exact = sizer.exactSize(e);
            int estimate = sizer.estimatedSize(e, features);
            int truesize = sizer.truesize(e, features);
            String id = e.id() == ConntrackMessage.ABSENT ? (json ? "null" : "-") : Long.toString(e.id());
            if (json) {
                out.printf(
                        Locale.ROOT,
                        "{\"kind\":\"%s\",\"id\":%s,\"exact_bytes\":%d,\"estimated_bytes\":%d,\"truesize_bytes\":%d}%n",
                        e.type(),
                        id,
                        exact,
                        estimate,
                        truesize);
            } else {
                out.printf(
                        Locale.ROOT,
                        "%-8s %12s %12d %16d %15d  %s%n",
                        e.type(),
                        id,
                        exact,
                        estimate,
                        truesize,
                        tuple(e.orig()));
            }
        }
    }

    /** "tcp 10.0.0.1:40000 > 10.0.0.2:443", as conntrack -L names a connection. */
    static String tuple(ConntrackTuple t) {
        if (t == null) {
            return "-";
        }
        String proto = switch (t.proto()) {
            case 6 -> "tcp";
            case 17 -> "udp";
            case 1 -> "icmp";
            case 58 -> "icmpv6";
            case 132 -> "sctp";
            default -> "proto " + t.proto();
        };
        if (t.hasPorts()) {
            String src = t.isIpv6() ? "[" + t.srcText() + "]" : t.srcText();
            String dst = t.isIpv6() ? "[" + t.dstText() + "]" : t.dstText();
            return proto + " " + src + ":" + t.srcPort() + " > " + dst + ":" + t.dstPort();
        }
        return proto + " " + t.srcText() + " > " + t.dstText();
    }

    private BudgetReport budget(List<ConntrackMessage> events, KernelFeatures features, NetlinkSizer sizer) {
        if (events.isEmpty()) {
            return null;
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (ConntrackMessage e : events) {
            first = Math.min(first, e.timeNanos());
            last = Math.max(last, e.timeNanos());
        }
        // One window over the whole input, whole seconds: rates are per second of the recording.
        long window = Math.max(1, (last - first + 999_999_999L) / 1_000_000_000L) * 1_000_000_000L;
        BudgetConfig config = new BudgetConfig(window, drainLatencyMs * 1_000_000L, rcvbuf, features);
        EventSizeBudget budget = new EventSizeBudget(file, first, config, sizer);
        for (ConntrackMessage e : events) {
            budget.add(e);
        }
        return budget.report();
    }

    private void printBudget(PrintStream out, BudgetReport r) {
        if (r == null) {
            out.println("\nno events");
            return;
        }
        long window = r.windowNanos();
        out.println();
        out.printf(
                Locale.ROOT,
                "events: %,d (NEW %,d, UPDATE %,d, DESTROY %,d) over %.0f s: %.1f events/s%n",
                r.newEvents() + r.updateEvents() + r.destroyEvents(),
                r.newEvents(),
                r.updateEvents(),
                r.destroyEvents(),
                window / 1e9,
                r.eventsPerSecond());
        out.printf(
                Locale.ROOT,
                "message bytes: min %d, avg %.1f, p99 %d, max %d; %.0f B/s; estimate waste %.0f%%%n",
                r.minSize(),
                r.avgSize(),
                r.p99Size(),
                r.maxSize(),
                r.bytesPerSecond(),
                100 * r.wasteRatio());
        out.printf(
                Locale.ROOT,
                "receive buffer charge (truesize): %.0f B/s; peak %,d B in 10 ms, %,d B in 100 ms%n",
                r.truesizeBytesPerSecond(),
                r.peakTruesize10ms(),
                r.peakTruesize100ms());
        out.printf(
                Locale.ROOT,
                "buffer needed at %d ms drain latency: %,d B (SO_RCVBUF %,d); configured SO_RCVBUF %,d -> sk_rcvbuf %,d: "
                        + "risk %s, predicted %,d drops / %,d ENOBUFS%n",
                drainLatencyMs,
                r.bufferNeeded(),
                r.recommendedRcvbuf(),
                rcvbuf,
                r.effectiveRcvbuf(),
                r.risk(),
                r.predictedDrops(),
                r.predictedEnobufs());
        out.println("(conntrack -E text cannot show ENOBUFS: observed losses are unknown; see docs/conntrack.md §4)");
    }

    /** The budget as the last JSON line: the same figures as the text summary, under "budget". */
    private String budgetJson(BudgetReport r) {
        return String.format(
                Locale.ROOT,
                "{\"budget\":{\"window_s\":%.0f,\"events\":%d,\"new\":%d,\"update\":%d,"
                        + "\"destroy\":%d,\"events_per_s\":%.1f,\"min_bytes\":%d,\"avg_bytes\":%.1f,\"p99_bytes\":%d,"
                        + "\"max_bytes\":%d,\"bytes_per_s\":%.0f,\"estimate_waste_ratio\":%.4f,"
                        + "\"truesize_bytes_per_s\":%.0f,\"peak_truesize_10ms_bytes\":%d,\"peak_truesize_100ms_bytes\":%d,"
                        + "\"drain_latency_ms\":%d,\"buffer_needed_bytes\":%d,\"recommended_rcvbuf_bytes\":%d,"
                        + "\"configured_rcvbuf_bytes\":%d,\"effective_rcvbuf_bytes\":%d,\"risk\":\"%s\","
                        + "\"predicted_drops\":%d,\"predicted_enobufs\":%d}}",
                r.windowNanos() / 1e9,
                r.newEvents() + r.updateEvents() + r.destroyEvents(),
                r.newEvents(),
                r.updateEvents(),
                r.destroyEvents(),
                r.eventsPerSecond(),
                r.minSize(),
                r.avgSize(),
                r.p99Size(),
                r.maxSize(),
                r.bytesPerSecond(),
                r.wasteRatio(),
                r.truesizeBytesPerSecond(),
                r.peakTruesize10ms(),
                r.peakTruesize100ms(),
                drainLatencyMs,
                r.bufferNeeded(),
                r.recommendedRcvbuf(),
                rcvbuf,
                r.effectiveRcvbuf(),
                r.risk(),
                r.predictedDrops(),
                r.predictedEnobufs());
    }
}
