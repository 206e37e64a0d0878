package io.flowtrace.core.testing;

import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.SlowStartStats;
import io.flowtrace.core.tcp.TcpFlowEvent;
import io.flowtrace.report.FlowReport;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs the offline analysis over a committed capture and keeps every flow's report and events, by client endpoint. */
public final class CaptureRun {
    public final Map<String, Map<String, Object>> flows = new LinkedHashMap<>();
    public final Map<String, List<TcpFlowEvent>> events = new LinkedHashMap<>();
    /** The client's (c2s) slow-start result of each flow, for the counters the report does not carry. */
    public final Map<String, SlowStartStats> clientSlowStart = new LinkedHashMap<>();

    public static CaptureRun of(Path capture) throws Exception {
        CaptureRun run = new CaptureRun();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        Map<String, List<TcpFlowEvent>> pending = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(capture)) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlatReport r = new FlatReport();
                        FlowReport.visit(key, instance, flow, r);
                        // the first connection of a client endpoint by its name, later ones (port reuse) with #instance
                        String name = run.flows.containsKey(flow.client().toString())
                                ? flow.client() + "#" + instance
                                : flow.client().toString();
                        run.flows.put(name, r.fields);
                        run.clientSlowStart.put(name, flow.slowStart(true));
                        run.events.put(name, pending.getOrDefault(key.canonical() + "#" + instance, List.of()));
                    },
                    (key, instance) -> {
                        List<TcpFlowEvent> list = new ArrayList<>();
                        pending.put(key.canonical() + "#" + instance, list);
                        return list::add;
                    },
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        return run;
    }

    /**
     * A numeric field of the flow of {@code client}; a flow flowtrace did not report, or a field it
     * lacks, fails the test (a 0 there made truth checks pass on nothing).
     */
    public long value(String client, String field) {
        Map<String, Object> f = flows.get(client);
        if (f == null) {
            throw new AssertionError("flowtrace reported no flow for client " + client);
        }
        Object v = f.get(field);
        if (!(v instanceof Number n)) {
            throw new AssertionError("flow " + client + " has no numeric field " + field + ": " + v);
        }
        return n.longValue();
    }
}
