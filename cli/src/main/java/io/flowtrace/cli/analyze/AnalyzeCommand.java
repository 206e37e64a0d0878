package io.flowtrace.cli.analyze;

import io.flowtrace.cli.capture.BpfFilter;
import io.flowtrace.cli.capture.CaptureInput;
import io.flowtrace.cli.capture.CaptureProblems;
import io.flowtrace.cli.console.FileProblems;
import io.flowtrace.cli.console.FlowtraceVersion;
import io.flowtrace.cli.console.PrivateOutput;
import io.flowtrace.cli.console.Progress;
import io.flowtrace.cli.output.EventWriter;
import io.flowtrace.cli.output.JsonReportWriter;
import io.flowtrace.cli.output.ServiceTableWriter;
import io.flowtrace.cli.output.TextEventWriter;
import io.flowtrace.cli.report.FlowGraph;
import io.flowtrace.cli.report.InteractiveReport;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.analysis.CaptureSummary;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.report.ServiceSetupTable;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code flowtrace analyze}: the analysis core over pcap or pcapng captures, like tcptrace -r. */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Analyse the TCP connections in pcap or pcapng captures (gzip, zstd or lz4 ok; - reads standard input).",
            "One line per connection by default (like tcptrace, or tshark -z conv,tcp); -l for every figure;",
            "--json for one JSON object per connection (docs/metrics.md). Progress and a summary go to stderr.",
            "",
            "  flowtrace analyze capture.pcap",
            "  flowtrace analyze -l --host 10.0.0.0/8 --port 443 capture.pcapng.gz",
            "  flowtrace analyze --sort retransmits --top 10 capture.pcap",
            "  flowtrace analyze --json capture.pcap > flows.jsonl",
            "  flowtrace analyze --sort rtt -o csv capture.pcap > flows.csv",
            "  flowtrace analyze --flow 10.0.0.1:40000-10.0.0.2:443 capture.pcap",
            "  flowtrace analyze --report report.html --top 5 capture.pcap",
            "  flowtrace analyze -f 'net 10.1.0.0/16 and tcp port 443' capture.pcap",
            ""
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every input was read to its end without format errors",
            "1:an input could not be read, or only in part (cut short, corrupt records skipped, trailing garbage);"
                    + " the report covers what was read; or --report had no flow to draw or could not be written",
            "2:invalid command line (unknown option, bad option value, a -f expression libpcap cannot compile,"
                    + " or -f without libpcap)"
        })
public final class AnalyzeCommand implements Callable<Integer> {
    /** More analysing threads than this only adds queues: each shard needs a core to be worth it. */
    private static final int MAX_THREADS = 256;

    private static final String NAME = "flowtrace analyze";

    @Spec
    CommandSpec spec;

    @Parameters(
            arity = "1..*",
            paramLabel = "FILE",
            description = "pcap or pcapng file(s), gzip-, zstd- or lz4-compressed or not; - reads standard input")
    List<String> files;

    @Option(
            names = {"-l", "--long"},
            description = "every figure of each connection, a block each (like tcptrace -l)")
    boolean longReport;

    @Option(names = "--json", description = "one JSON object per flow per line (docs/metrics.md)")
    boolean json;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "FORMAT",
            description = "table (default), long (-l), json (--json) or csv: a header of the JSON paths"
                    + " (docs/metrics.md), then one row per connection")
    String output;

    @Option(
            names = "--events",
            description = "also write each TCP event (retransmission, reordering, ...) as it happens")
    boolean events;

    @Option(
            names = "--sort",
            paramLabel = "KEY",
            description = "order by KEY, largest first: " + FlowCollector.SortKey.NAMES
                    + " (default: by first packet; with --top: retransmits)")
    String sort;

    @Option(names = "--top", paramLabel = "N", description = "only the N flows ranked first by --sort")
    Integer top;

    @Option(
            names = "--host",
            // no [ ] in a label: AsciiDoc took "_IP[/PREFIX]_]" for markup and the man page lost --host
            paramLabel = "ADDRESS",
            description = "only flows with this IPv4/IPv6 address, or an address in this network"
                    + " (ADDRESS/PREFIX, e.g. 10.0.0.0/8), on either side")
    String host;

    @Option(names = "--port", paramLabel = "N", description = "only flows with this port (0-65535) on either side")
    Integer port;

    @Option(
            names = {"-f", "--filter"},
            paramLabel = "EXPR",
            description = "only the packets this tcpdump/pcap-filter(7) expression matches, compiled by libpcap,"
                    + " e.g. 'host 10.0.0.1 and tcp port 443' (quote it as one argument)")
    String filterExpression;

    @Option(
            names = "--agent-id",
            paramLabel = "ID",
            defaultValue = "local",
            description = "vantage name (the agent id the live pipeline would use; default: ${DEFAULT-VALUE})")
    String agentId;

    @Option(
            names = "--idle-timeout",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "end established flows idle this long (default: ${DEFAULT-VALUE})")
    long idleTimeoutSeconds;

    @Option(
            names = "--services",
            description = "instead of flows: setup-time distribution per service (server ip:port)")
    boolean services;

    @Option(
            names = "--report",
            paramLabel = "DIR|FILE.html",
            description =
                    "also write interactive graphs (time-sequence with rwnd and SACK, flight and cwnd, RTT) of the"
                            + " worst flows (--top N, default 3, by --sort) or of --flow to one self-contained HTML file")
    Path report;

    @Option(
            names = "--flow",
            paramLabel = "CLIENT-SERVER",
            description = "only this connection, as the table prints it (CLIENT-SERVER, either order): every"
                    + " figure of it (-l) or, with --report, its graphs;%n  e.g. 10.0.0.1:40000-10.0.0.2:443")
    String flow;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "analyse with N threads, the flows spread over them by connection (same output"
                    + " whatever N; default: the available processors, ${DEFAULT-VALUE} here)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(
            names = {"-q", "--quiet"},
            description = "no progress or summary on stderr (errors are still printed)")
    boolean quiet;

    /** OpenVPN sessions of the same file (a second pass over UDP; OpenVpnAnalysis.java). */
    @picocli.CommandLine.Mixin
    OpenVpnAnalysis openvpn = new OpenVpnAnalysis();

    private boolean csv;
    private HostFilter hostFilter;
    private FlowCollector.SortKey sortKey;
    private CaptureRecordFilter recordFilter = CaptureRecordFilter.ALL;
    /** --events as text: held and written in time order after each input (TextEventWriter.java). */
    private TextEventWriter textEvents;
    /** stdout under a "# FILE" header per input that was read (InputSections.java). */
    private InputSections sections;

    @Override
    public Integer call() throws IOException {
        validate();
        try {
            return analyseAll();
        } finally {
            if (recordFilter instanceof BpfFilter bpf) {
                bpf.close();
            }
        }
    }

    private int analyseAll() throws IOException {
        sections = new InputSections(
                new BufferedOutputStream(System.out, 1 << 16), files.size() > 1 && !json && !services);
        PrintStream out = new PrintStream(sections, false);
        AnalyzerConfig config = AnalyzerConfig.DEFAULTS.withIdleTimeouts(
                idleTimeoutSeconds * 1_000_000_000L, AnalyzerConfig.DEFAULTS.halfOpenTimeoutNanos());
        JsonReportWriter jsonWriter = json ? new JsonReportWriter(out) : null;
        ServiceSetupTable serviceTable = new ServiceSetupTable();
        boolean everyInputRead = true;
        for (String file : files) {
            sections.begin(file);
            everyInputRead &= analyse(file, config, out, jsonWriter, serviceTable);
            out.flush();
        }
        if (services) {
            ServiceTableWriter.write(serviceTable.rows(), json, out);
            openvpn.writeServices(json, out);
        }
        if (jsonWriter != null) {
            jsonWriter.close();
        }
        out.flush();
        return everyInputRead ? 0 : 1;
    }

    private void validate() {
        if (output != null) {
            switch (output.toLowerCase(Locale.ROOT)) {
                case "table" -> {}
                case "long" -> longReport = true;
                case "json" -> json = true;
                case "csv" -> csv = true;
                default -> throw usage("-o must be table, long, json or csv, not '" + output + "'");
            }
        }
        if (top != null && top <= 0) {
            throw usage("--top must be a positive number of flows, not " + top);
        }
        if (port != null && (port < 0 || port > 65535)) {
            throw usage("--port must be a TCP port, 0-65535, not " + port);
        }
        if (threads < 1 || threads > MAX_THREADS) {
            throw usage("--threads must be 1-" + MAX_THREADS + " analysing threads, not " + threads);
        }
        if (idleTimeoutSeconds <= 0) {
            throw usage("--idle-timeout must be a positive number of seconds, not " + idleTimeoutSeconds);
        }
        if (report != null && (files.size() != 1 || files.get(0).equals("-"))) {
            throw usage(
                    "--report reads the capture again to draw it: give exactly one capture file, not standard input");
        }
        if (flow != null && report == null && !json && !csv) {
            longReport = true; // one connection: all its figures (-l), as tcptrace -l -o N prints one
        }
        try {
            if (report != null) {
                InteractiveReport.checkTarget(report); // before reading anything (docs/reliability.md "Security")
            }
            if (flow != null) {
                ReportCandidates.validateFlow(flow);
            }
            hostFilter = host == null ? null : HostFilter.parse(host);
            sortKey = sort == null ? null : FlowCollector.SortKey.parse(sort);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage().startsWith("--") ? e.getMessage() : "--host " + e.getMessage());
        }
        if (filterExpression != null) {
            try {
                recordFilter = BpfFilter.compile(filterExpression);
            } catch (BpfFilter.FilterException e) {
                throw usage(e.getMessage());
            }
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** Analyses one input; true when it was read to its end without errors. */
    private boolean analyse(
            String file,
            AnalyzerConfig config,
            PrintStream out,
            JsonReportWriter jsonWriter,
            ServiceSetupTable serviceTable)
            throws IOException {
        CaptureInput input;
        try {
            input = CaptureInput.open(file);
        } catch (CaptureInput.UnreadableInputException e) {
            System.err.println(NAME + ": " + e.getMessage());
            return false;
        }
        FlowCollector.Format format = json
                ? FlowCollector.Format.JSON
                : csv ? FlowCollector.Format.CSV : longReport ? FlowCollector.Format.LONG : FlowCollector.Format.TABLE;
        FlowCollector collector = new FlowCollector(format, sortKey, top, out, jsonWriter);
        ReportCandidates drawn = report == null ? null : new ReportCandidates(flow, top != null ? top : 3, sortKey);
        AnalyzedFlows flows = new AnalyzedFlows(hostFilter, port, services ? serviceTable : null, collector, drawn)
                .only(report == null ? flow : null);
        CaptureProblems problems = new CaptureProblems(file);
        Progress progress = Progress.start(input, quiet, collector.streams() || events, System.err);
        CaptureSummary summary = read(file, input, config, flows, problems, progress, out);
        if (summary == null) {
            return false;
        }
        if (!summary.format.isEmpty()) {
            sections.recognised();
        }
        if (textEvents != null) {
            textEvents.finish();
        }
        collector.finish();
        out.flush();
        // a second pass only if the first saw UDP or TCP on an OpenVPN port; none on stdin (told why)
        boolean udpSeen = file.equals("-")
                ? summary.count(DecodeStatus.NOT_TCP) > 0
                : summary.watchedUdp + summary.watchedTcp > 0;
        openvpn.analyze(file, recordFilter, udpSeen, json, services, quiet, agentId, out);
        boolean complete = problems.report(input, summary);
        if (report == null && flow != null && collector.flows() == 0) {
            System.err.println(NAME + ": --flow: no connection " + flow + " in \"" + file + "\"");
            complete = false;
        }
        if (drawn != null) {
            complete &= writeReport(file, drawn);
        }
        if (!quiet && !summary.format.isEmpty()) {
            long matched = services ? -1 : collector.flows();
            System.err.println(SummaryLine.of(
                    file,
                    summary,
                    filterExpression,
                    SummaryLine.filterText(host, port),
                    flows.seen(),
                    matched,
                    progress.elapsedSeconds()));
        }
        return complete;
    }

    /** Runs the analysis over one opened input; null (after one line on stderr) when it could not be read. */
    private CaptureSummary read(
            String file,
            CaptureInput input,
            AnalyzerConfig config,
            AnalyzedFlows flows,
            CaptureProblems problems,
            Progress progress,
            PrintStream out) {
        CaptureAnalysis analysis = new CaptureAnalysis(
                        config, iface -> new VantagePoint(agentId, "if" + iface), threads)
                .watchingUdpPorts(openvpn.watchedPorts());
        TcpEventSinkFactory sinks = events ? eventSinks(out) : TcpEventSinkFactory.NONE;
        try (input;
                progress) {
            return analysis.run(input.stream(), recordFilter, flows, sinks, problems, progress::update);
        } catch (IOException e) {
            System.err.println(
                    NAME + ": \"" + file + "\": read error after " + input.bytesRead() + " bytes: " + e.getMessage());
            return null;
        } catch (BpfFilter.FilterException e) {
            // an expression that compiled for Ethernet but not for a link type of this capture
            System.err.println(NAME + ": \"" + file + "\": " + e.getMessage());
            return null;
        }
    }

    /** Writes the report; false (after one line) when there was nothing to draw or it could not be written. */
    private boolean writeReport(String file, ReportCandidates drawn) throws IOException {
        List<FlowGraph.Selection> selection = drawn.selection();
        if (selection.isEmpty()) {
            System.err.println(NAME + ": --report: "
                    + (flow != null ? "no flow " + flow + " in \"" + file + "\"" : "no flow to draw")
                    + "; no report written");
            return false;
        }
        Path written;
        try {
            written = InteractiveReport.write(
                    report,
                    Path.of(file).getFileName().toString(),
                    FlowGraph.read(Path.of(file), agentId, selection, recordFilter));
        } catch (FileSystemException | PrivateOutput.RefusedException e) { // refused: changed since the check at start
            String why = e instanceof FileSystemException f ? report + ": " + FileProblems.describe(f) : e.getMessage();
            System.err.println(NAME + ": --report " + why + "; no report written");
            return false;
        }
        if (!quiet) {
            String flows = selection.size() == 1 ? "1 flow" : selection.size() + " flows";
            System.err.println(NAME + ": report of " + flows + ": " + written);
        }
        return true;
    }

    private TcpEventSinkFactory eventSinks(PrintStream out) {
        if (json) {
            EventWriter writer;
            try {
                writer = new EventWriter(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return (key, instance) -> e -> writer.write(key, instance, e);
        }
        TextEventWriter writer = new TextEventWriter(out);
        textEvents = writer;
        return (key, instance) -> e -> writer.write(key, e);
    }
}
