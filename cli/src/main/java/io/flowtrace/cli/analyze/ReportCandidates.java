package io.flowtrace.cli.analyze;

import io.flowtrace.cli.report.FlowGraph;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Which flows {@code analyze --report} draws: the one {@code --flow CLIENT-SERVER} names (every
 * instance of it, in either order of the two endpoints), or the N worst by the --sort key
 * (retransmissions by default). Keeps only the selection, never every flow.
 */
public final class ReportCandidates {
    private record Candidate(long rank, long firstSeen, FlowGraph.Selection selection) {}

    private static final Comparator<Candidate> ORDER = Comparator.comparingLong(Candidate::rank)
            .thenComparing(Comparator.comparingLong(Candidate::firstSeen).reversed());
    private final String flowFilter;
    private final int worst;
    private final FlowCollector.SortKey sort;
    private final PriorityQueue<Candidate> best = new PriorityQueue<>(ORDER);
    private final List<Candidate> named = new ArrayList<>();

    /** @param flowFilter "ip:port-ip:port" or null */
    ReportCandidates(String flowFilter, int worst, FlowCollector.SortKey sort) {
        this.flowFilter = flowFilter;
        this.worst = worst;
        this.sort = sort == null ? FlowCollector.SortKey.RETRANSMITS : sort;
    }

    /** Checks the --flow value: two endpoints as the report prints them, joined by '-'. */
    static void validateFlow(String flow) {
        int dash = flow.indexOf("-", flow.lastIndexOf(']') >= 0 && flow.startsWith("[") ? flow.indexOf(']') : 0);
        if (dash <= 0
                || dash == flow.length() - 1
                || !flow.substring(0, dash).contains(":")
                || !flow.substring(dash + 1).contains(":")) {
            throw new IllegalArgumentException("--flow must be CLIENT-SERVER as the report prints it, e.g. "
                    + "10.0.0.1:40000-10.0.0.2:443 or [fd00::1]:40000-[fd00::2]:443, not '" + flow + "'");
        }
    }

    void add(FlowKey key, long instance, TcpFlowAnalyzer f) {
        boolean senderIsClient = f.clientToServer().uniqueBytes >= f.serverToClient().uniqueBytes;
        String title = f.client() + " - " + f.server() + " ("
                + (senderIsClient ? "client to server" : "server to client") + " data, instance " + instance + ")";
        FlowGraph.Selection s = new FlowGraph.Selection(
                key, instance, f.client(), f.server(), f.firstSeenNanos(), f.lastSeenNanos(), senderIsClient, title);
        if (flowFilter != null) {
            if (names(flowFilter, f.client(), f.server())) {
                named.add(new Candidate(0, f.firstSeenNanos(), s));
            }
            return;
        }
        if (f.clientToServer().uniqueBytes == 0 && f.serverToClient().uniqueBytes == 0) {
            return; // no data either way: every chart of it would be empty, so it is not among "the worst N"
        }
        best.add(new Candidate(sort.rank(key, instance, f), f.firstSeenNanos(), s));
        if (best.size() > worst) {
            best.poll();
        }
    }

    /** True when {@code flow} ("ip:port-ip:port", either order) names the connection of these endpoints. */
    static boolean names(String flow, Endpoint client, Endpoint server) {
        String a = client.toString();
        String b = server.toString();
        return flow.equals(a + "-" + b) || flow.equals(b + "-" + a);
    }

    List<FlowGraph.Selection> selection() {
        List<Candidate> c = new ArrayList<>(flowFilter != null ? named : best);
        c.sort(flowFilter != null ? Comparator.comparingLong(Candidate::firstSeen) : ORDER.reversed());
        List<FlowGraph.Selection> out = new ArrayList<>();
        for (Candidate x : c) {
            out.add(x.selection());
        }
        return out;
    }
}
