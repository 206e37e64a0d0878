package io.flowtrace.cli.analyze;

import io.flowtrace.cli.capture.CaptureInput;
import io.flowtrace.cli.capture.OpenVpnWireOptions;
import io.flowtrace.cli.output.OpenVpnReportWriter;
import io.flowtrace.core.openvpn.OpenVpnCaptureAnalysis;
import io.flowtrace.core.openvpn.OpenVpnServerTable;
import io.flowtrace.core.openvpn.OpenVpnSession;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The OpenVPN part of {@code flowtrace analyze} (a picocli mixin): after the TCP pass over a file,
 * a second pass over the same file decodes UDP on the OpenVPN ports and reports each OpenVPN
 * session (text, or JSON Lines with {@code "protocol": "openvpn"}), or feeds the per-server setup
 * table of {@code --services}. Standard input cannot be read twice: OpenVPN is skipped there, said
 * once on stderr when an OpenVPN option was given.
 */
public final class OpenVpnAnalysis {
    @Mixin
    OpenVpnWireOptions wire;

    /** The command this mixin is part of: whether the user named an OpenVPN option. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private final OpenVpnServerTable servers = new OpenVpnServerTable();

    /** The UDP ports the TCP pass should watch for: the OpenVPN ports, none when OpenVPN is off. */
    int[] watchedPorts() {
        return wire.enabled() ? wire.ports.clone() : new int[0];
    }

    /**
     * Runs the OpenVPN pass over {@code file} when the TCP pass saw UDP on an OpenVPN port
     * ({@code udpSeen}); writes sessions unless {@code services}.
     */
    void analyze(
            String file,
            CaptureRecordFilter filter,
            boolean udpSeen,
            boolean json,
            boolean services,
            boolean quiet,
            String agentId,
            PrintStream out)
            throws IOException {
        if (!udpSeen || !wire.enabled()) {
            return;
        }
        if (file.equals("-")) {
            // Said only to a user who asked for OpenVPN: UDP or ARP on a pipe is no reason for a line.
            if (!quiet && askedForOpenVpn()) {
                System.err.println("flowtrace analyze: -: OpenVPN sessions need a file (standard input is read once)");
            }
            return;
        }
        OpenVpnCaptureAnalysis.Summary summary;
        // Opened as the TCP pass opens it, so a cut .gz ends this pass where it ended that one (whose
        // report already said so), instead of an "Unexpected end of ZLIB input stream".
        try (CaptureInput in = CaptureInput.open(file)) {
            summary =
                    new OpenVpnCaptureAnalysis(wire.wire(), iface -> agentId + "/if" + iface).run(in.stream(), filter);
        } catch (CaptureInput.UnreadableInputException e) {
            return; // the TCP pass read it a moment ago and has reported why it no longer can
        }
        for (OpenVpnSession s : summary.sessions) {
            if (services) {
                servers.add(s);
            } else if (json) {
                out.println(OpenVpnReportWriter.json(s));
            } else {
                OpenVpnReportWriter.text(s, out);
            }
        }
        out.flush();
        if (!quiet && summary.openVpnPackets > 0) {
            System.err.printf(
                    Locale.ROOT,
                    "flowtrace analyze: %s: %,d OpenVPN packets, %,d sessions%s, %,d opaque (tls-crypt),"
                            + " %,d truncated, %,d malformed headers%s%n",
                    file,
                    summary.openVpnPackets,
                    summary.sessions.size(),
                    wrappings(summary),
                    summary.opaque,
                    summary.truncated,
                    summary.malformed,
                    firstReasons(summary));
        }
    }

    /**
     * " (12 tls-auth HMAC 20 bytes, detected)": the sessions per transport and wrapping and how
     * the wrapping was known, with the control packets read before their flow's was found.
     */
    private static String wrappings(OpenVpnCaptureAnalysis.Summary s) {
        Map<String, Integer> n = new TreeMap<>();
        for (OpenVpnSession x : s.sessions) {
            n.merge(("tcp".equals(x.transport()) ? "tcp " : "") + OpenVpnReportWriter.wrappingText(x), 1, Integer::sum);
        }
        StringBuilder b = new StringBuilder();
        n.forEach((k, v) ->
                b.append(b.length() == 0 ? " (" : ", ").append(v).append(' ').append(k));
        if (s.undecided > 0) {
            b.append(b.length() == 0 ? " (" : ", ")
                    .append(s.undecided)
                    .append(" control packets before the wrapping was found");
        }
        return b.length() == 0 ? "" : b.append(')').toString();
    }

    private boolean askedForOpenVpn() {
        ParseResult parsed = command.commandLine().getParseResult();
        return parsed != null
                && (parsed.hasMatchedOption("--openvpn-port")
                        || parsed.hasMatchedOption("--openvpn-tls-auth")
                        || parsed.hasMatchedOption("--openvpn-tls-crypt"));
    }

    private static String firstReasons(OpenVpnCaptureAnalysis.Summary s) {
        String r = s.firstTruncatedReason != null ? "; first truncated: " + s.firstTruncatedReason : "";
        return r + (s.firstMalformedReason != null ? "; first malformed: " + s.firstMalformedReason : "");
    }

    /** The per-server table of {@code --services}, after the TCP one. */
    void writeServices(boolean json, PrintStream out) {
        List<OpenVpnServerTable.Row> rows = servers.rows();
        if (!rows.isEmpty()) {
            OpenVpnReportWriter.servers(rows, json, out);
        }
    }
}
