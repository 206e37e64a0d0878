package io.flowtrace.cli;

import io.flowtrace.core.conntrack.BudgetConfig;
import io.flowtrace.core.conntrack.BudgetReport;
import io.flowtrace.core.conntrack.ConntrackBudget;
import io.flowtrace.core.conntrack.ConntrackEvent;
import io.flowtrace.core.conntrack.ConntrackLineParser;
import io.flowtrace.core.conntrack.ConntrackTextParseException;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NetlinkSizer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flowtrace conntrack sizes}: per event of {@code conntrack -E -o timestamp,extended,id,ktimestamp}
 * (text or XML) its exact netlink message size, the kernel's static estimate and the receive-buffer
 * charge, then the budget (issue 5, docs/conntrack.md).
 */
@Command(name = "sizes", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Exact ctnetlink message size, kernel estimate and truesize of each conntrack -E event.",
            "  conntrack -E -o timestamp,extended,id,ktimestamp | flowtrace conntrack sizes -"})
final class ConntrackSizesCommand implements Callable<Integer> {
    private static final int MAX_ERRORS_SHOWN = 10;

    @Parameters(paramLabel = "FILE", description = "conntrack -E output (text or -o xml); - reads standard input")
    String file;

    @Option(names = "--json", description = "one JSON object per event per line: kind, id, exact_bytes, estimated_bytes, truesize_bytes")
    boolean json;

    @Option(names = "--no-acct", description = "nf_conntrack_acct=0 (no counters on DESTROY, none reserved)")
    boolean noAcct;

    @Option(names = "--no-timestamp", description = "nf_conntrack_timestamp=0 (no start/stop, no event timestamp)")
    boolean noTimestamp;

    @Option(names = "--labels", description = "entries carry conntrack labels (nft ct label)")
    boolean labels;

    @Option(names = "--secctx-length", paramLabel = "N", defaultValue = "0",
            description = "LSM security context length incl. NUL (0: no SELinux/Smack)")
    int secctxLength;

    @Option(names = "--no-nat", description = "kernel built without CONFIG_NF_NAT")
    boolean noNat;

    @Option(names = "--no-mark", description = "kernel built without CONFIG_NF_CONNTRACK_MARK")
    boolean noMark;

    @Option(names = "--no-zones", description = "kernel built without CONFIG_NF_CONNTRACK_ZONES")
    boolean noZones;

    @Option(names = "--no-event-timestamp", description = "kernel older than CTA_TIMESTAMP_EVENT (type 27, 6.x)")
    boolean noEventTimestamp;

    @Option(names = "--rcvbuf", paramLabel = "BYTES", defaultValue = "2097152",
            description = "listener SO_RCVBUF request for the budget (default: ${DEFAULT-VALUE}, conntrackd's)")
    int rcvbuf;

    @Option(names = "--drain-latency-ms", paramLabel = "MS", defaultValue = "100",
            description = "the listener's worst stall between reads (default: ${DEFAULT-VALUE})")
    long drainLatencyMs;

    KernelFeatures features() {
        return new KernelFeatures(!noAcct, !noTimestamp, labels, secctxLength, !noNat, !noMark, !noZones,
                !noEventTimestamp);
    }

    @Override
    public Integer call() throws IOException {
        KernelFeatures features = features();
        ConntrackLineParser parser = new ConntrackLineParser(features);
        NetlinkSizer sizer = new NetlinkSizer();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        List<ConntrackEvent> events = new ArrayList<>();
        long errors = 0;
        try (BufferedReader in = open(file)) {
            long n = 0;
            if (!json) {
                out.printf("%-8s %12s %12s %16s %15s%n", "kind", "id", "exact_bytes", "estimated_bytes", "truesize_bytes");
            }
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                n++;
                ConntrackEvent e;
                try {
                    e = parser.parseLine(line, n);
                } catch (ConntrackTextParseException ex) {
                    if (++errors <= MAX_ERRORS_SHOWN) {
                        System.err.println("flowtrace conntrack sizes: " + file + ": " + ex.getMessage());
                    }
                    continue;
                }
                if (e == null) {
                    continue;
                }
                events.add(e);
                int exact = sizer.exactSize(e);
                int estimate = sizer.estimatedSize(e, features);
                int truesize = sizer.truesize(e, features);
                String id = e.id() == ConntrackEvent.ABSENT ? (json ? "null" : "-") : Long.toString(e.id());
                if (json) {
                    out.printf("{\"kind\":\"%s\",\"id\":%s,\"exact_bytes\":%d,\"estimated_bytes\":%d,\"truesize_bytes\":%d}%n",
                            e.type(), id, exact, estimate, truesize);
                } else {
                    out.printf("%-8s %12s %12d %16d %15d%n", e.type(), id, exact, estimate, truesize);
                }
            }
        } catch (NoSuchFileException e) {
            System.err.println("flowtrace conntrack sizes: " + file + ": no such file");
            return 1;
        }
        if (errors > MAX_ERRORS_SHOWN) {
            System.err.printf("flowtrace conntrack sizes: %s: %d more unreadable lines%n", file, errors - MAX_ERRORS_SHOWN);
        }
        if (!json) {
            printBudget(out, events, features, sizer);
        }
        out.flush();
        return events.isEmpty() && errors > 0 ? 1 : 0;
    }

    private void printBudget(PrintStream out, List<ConntrackEvent> events, KernelFeatures features, NetlinkSizer sizer) {
        if (events.isEmpty()) {
            out.println("\nno events");
            return;
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (ConntrackEvent e : events) {
            first = Math.min(first, e.timeNanos());
            last = Math.max(last, e.timeNanos());
        }
        // One window over the whole input, whole seconds: rates are per second of the recording.
        long window = Math.max(1, (last - first + 999_999_999L) / 1_000_000_000L) * 1_000_000_000L;
        BudgetConfig config = new BudgetConfig(window, drainLatencyMs * 1_000_000L, rcvbuf, features);
        ConntrackBudget budget = new ConntrackBudget(file, first, config, sizer);
        for (ConntrackEvent e : events) {
            budget.add(e);
        }
        BudgetReport r = budget.report();
        out.println();
        out.printf("events: %,d (NEW %,d, UPDATE %,d, DESTROY %,d) over %.0f s: %.1f events/s%n",
                r.newEvents() + r.updateEvents() + r.destroyEvents(), r.newEvents(), r.updateEvents(), r.destroyEvents(),
                window / 1e9, r.eventsPerSecond());
        out.printf("message bytes: min %d, avg %.1f, p99 %d, max %d; %.0f B/s; estimate waste %.0f%%%n", r.minSize(),
                r.avgSize(), r.p99Size(), r.maxSize(), r.bytesPerSecond(), 100 * r.wasteRatio());
        out.printf("receive buffer charge (truesize): %.0f B/s; peak %,d B in 10 ms, %,d B in 100 ms%n",
                r.truesizeBytesPerSecond(), r.peakTruesize10ms(), r.peakTruesize100ms());
        out.printf("buffer needed at %d ms drain latency: %,d B (SO_RCVBUF %,d); configured SO_RCVBUF %,d -> sk_rcvbuf %,d: "
                        + "risk %s, predicted %,d drops / %,d ENOBUFS%n", drainLatencyMs, r.bufferNeeded(),
                r.recommendedRcvbuf(), rcvbuf, r.effectiveRcvbuf(), r.risk(), r.predictedDrops(), r.predictedEnobufs());
        out.println("(conntrack -E text cannot show ENOBUFS: observed losses are unknown; see docs/conntrack.md §4)");
    }

    private static BufferedReader open(String file) throws IOException {
        return file.equals("-") ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
    }
}
