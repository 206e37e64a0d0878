package io.flowtrace.cli;

import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.analysis.CaptureSummary;
import io.flowtrace.core.flow.FlowKey;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.report.FlowReport;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.DirectionStats;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flowtrace analyze}: the analysis core over a pcap or pcapng file, like tcptrace -l -r. */
@Command(name = "analyze", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Analyse the TCP connections in a pcap or pcapng capture (use - for stdin).")
final class AnalyzeCommand implements Callable<Integer> {
    private static final int MAX_ERRORS_SHOWN = 10;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "pcap or pcapng file(s); - reads standard input")
    List<String> files;

    @Option(names = "--json", description = "one JSON object per flow per line (docs/metrics.md)")
    boolean json;

    @Option(names = "--events", description = "also write each TCP event (retransmission, reordering, ...) as it happens")
    boolean events;

    @Option(names = "--top", paramLabel = "N", description = "only the N flows ranked first by --sort")
    Integer top;

    @Option(names = "--sort", paramLabel = "KEY", defaultValue = "retransmits",
            description = "ranking for --top: retransmits, bytes, packets, duration (default: ${DEFAULT-VALUE})")
    String sort;

    @Option(names = "--host", paramLabel = "IP", description = "only flows with this address on either side")
    String host;

    @Option(names = "--port", paramLabel = "N", description = "only flows with this port on either side")
    Integer port;

    @Option(names = "--agent-id", paramLabel = "ID", defaultValue = "local",
            description = "vantage name (the agent id the live pipeline would use; default: ${DEFAULT-VALUE})")
    String agentId;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "end established flows idle this long (default: ${DEFAULT-VALUE})")
    long idleTimeoutSeconds;

    @Option(names = "--services", description = "instead of flows: setup-time distribution per service (server ip:port)")
    boolean services;

    @Option(names = {"-q", "--quiet"}, description = "no progress or summary on stderr")
    boolean quiet;

    @picocli.CommandLine.Mixin
    OpenVpnAnalysis openvpn = new OpenVpnAnalysis();

    @Override
    public Integer call() throws IOException {
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false);
        AnalyzerConfig config = AnalyzerConfig.DEFAULTS.withIdleTimeouts(idleTimeoutSeconds * 1_000_000_000L,
                AnalyzerConfig.DEFAULTS.halfOpenTimeoutNanos());
        JsonReportWriter jsonWriter = json ? new JsonReportWriter(out) : null;
        TextReportWriter textWriter = json ? null : new TextReportWriter(out);
        EventWriter eventWriter = events && json ? new EventWriter(out) : null;
        int analysed = 0;
        io.flowtrace.core.report.ServiceSetupTable serviceTable = new io.flowtrace.core.report.ServiceSetupTable();
        for (String file : files) {
            List<Ranked> ranked = new ArrayList<>();
            PriorityQueue<Ranked> best = new PriorityQueue<>(rankOrder());
            CaptureAnalysis analysis = new CaptureAnalysis(config, iface -> agentId + "/if" + iface);
            ErrorReporter errors = new ErrorReporter(file, quiet);
            Progress progress = new Progress(file, quiet);
            TcpEventSinkFactory sinks = events ? (key, instance) -> eventSink(key, instance, eventWriter, out)
                    : TcpEventSinkFactory.NONE;
            CaptureSummary summary;
            try (InputStream in = open(file)) {
                summary = analysis.run(in, (key, instance, flow) -> {
                    if (!matches(flow)) {
                        return;
                    }
                    if (services) {
                        serviceTable.add(flow);
                    } else if (top != null) {
                        best.add(new Ranked(key, instance, flow));
                        if (best.size() > top) {
                            best.poll();
                        }
                    } else {
                        write(key, instance, flow, jsonWriter, textWriter);
                    }
                }, sinks, errors, progress::update);
            } catch (NoSuchFileException e) {
                System.err.println("flowtrace analyze: " + file + ": no such file");
                continue;
            }
            if (top != null) {
                ranked.addAll(best);
                ranked.sort(rankOrder().reversed());
                for (Ranked r : ranked) {
                    write(r.key, r.instance, r.flow, jsonWriter, textWriter);
                }
            }
            out.flush();
            progress.done();
            if (summary.fatalError != null) {
                System.err.println("flowtrace analyze: " + file + ": " + summary.fatalError);
            }
            if (!quiet) {
                printSummary(file, summary, progress.elapsedSeconds());
            }
            if (summary.records > 0) {
                analysed++;
            }
            openvpn.analyze(file, summary.count(DecodeStatus.NOT_TCP) > 0, json, services, quiet, agentId, out);
        }
        if (services) {
            ServiceTableWriter.write(serviceTable.rows(), json, out);
            openvpn.writeServices(json, out);
        }
        if (jsonWriter != null) {
            jsonWriter.close();
        }
        out.flush();
        return analysed > 0 ? 0 : 1;
    }

    private static TcpEventSink eventSink(FlowKey key, long instance, EventWriter writer, PrintStream out) {
        return e -> {
            if (writer != null) {
                writer.write(key, instance, e);
            } else {
                out.printf("event %s %s %s%n", key.canonical(), EventWriter.kind(e), e);
            }
        };
    }

    private static InputStream open(String file) throws IOException {
        return file.equals("-") ? System.in : Files.newInputStream(Path.of(file));
    }

    private boolean matches(TcpFlowAnalyzer flow) {
        if (port != null && flow.client().port() != port && flow.server().port() != port) {
            return false;
        }
        return host == null || flow.client().hostString().equals(host) || flow.server().hostString().equals(host);
    }

    private static void write(FlowKey key, long instance, TcpFlowAnalyzer flow, JsonReportWriter json,
            TextReportWriter text) {
        if (json != null) {
            json.write(key, instance, flow);
        } else {
            text.beginFlow();
            FlowReport.visit(key, instance, flow, text);
            text.endFlow();
        }
    }

    private record Ranked(FlowKey key, long instance, TcpFlowAnalyzer flow) {
    }

    private Comparator<Ranked> rankOrder() {
        Comparator<Ranked> c = switch (sort) {
            case "bytes" -> Comparator.comparingLong(r -> total(r.flow, d -> d.dataBytes));
            case "packets" -> Comparator.comparingLong(r -> total(r.flow, d -> d.packets));
            case "duration" -> Comparator.comparingLong(r -> r.flow.lastSeenNanos() - r.flow.firstSeenNanos());
            case "retransmits" -> Comparator.comparingLong(r -> total(r.flow, d -> d.retransmittedPackets));
            default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--sort must be retransmits, bytes, packets or duration, not " + sort);
        };
        return c.thenComparingLong(r -> -r.flow.firstSeenNanos());
    }

    private static long total(TcpFlowAnalyzer f, java.util.function.ToLongFunction<DirectionStats> metric) {
        return metric.applyAsLong(f.clientToServer()) + metric.applyAsLong(f.serverToClient());
    }

    private static void printSummary(String file, CaptureSummary s, double seconds) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("flowtrace analyze: %s: %s; %,d records, %,d TCP", file, s.format, s.records, s.tcpPackets()));
        for (DecodeStatus st : DecodeStatus.values()) {
            if (st != DecodeStatus.TCP && s.count(st) > 0) {
                b.append(String.format(", %,d %s", s.count(st), st.name().toLowerCase().replace('_', ' ')));
            }
        }
        b.append(String.format("; %,d flows; %,d format errors; %.2f s (%,.0f packets/s)", s.flows, s.formatErrors,
                seconds, seconds > 0 ? s.records / seconds : 0.0));
        System.err.println(b);
    }

    /** Prints the first few format errors and counts the rest, so a corrupt file cannot flood stderr. */
    private static final class ErrorReporter implements io.flowtrace.core.pcap.CaptureErrorListener {
        private final String file;
        private final boolean quiet;
        private long count;

        ErrorReporter(String file, boolean quiet) {
            this.file = file;
            this.quiet = quiet;
        }

        @Override
        public void onError(CaptureFormatException error) {
            count++;
            if (count <= MAX_ERRORS_SHOWN) {
                System.err.println("flowtrace analyze: " + file + ": " + error.getMessage());
            } else if (count == MAX_ERRORS_SHOWN + 1 && !quiet) {
                System.err.println("flowtrace analyze: " + file + ": further format errors are counted, not shown");
            }
        }
    }
}
