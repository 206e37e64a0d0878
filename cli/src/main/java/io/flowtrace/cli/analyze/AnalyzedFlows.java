package io.flowtrace.cli.analyze;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.report.ServiceSetupTable;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * Where each finished flow of one capture goes: counted, kept if it passes --host/--port, then to
 * the services table or the flow report, and to the graph candidates of --report.
 */
public final class AnalyzedFlows implements FlowTracker.FlowListener {
    private final HostFilter host;
    private final Integer port;
    private final ServiceSetupTable services;
    private final FlowCollector collector;
    private final ReportCandidates drawn;
    private long seen;
    /** --flow without --report: only this connection ("ip:port-ip:port", either order), or null. */
    private String only;

    /**
     * @param services the services table (--services), or null for the flow report
     * @param drawn the --report candidates, or null
     */
    AnalyzedFlows(
            HostFilter host,
            Integer port,
            ServiceSetupTable services,
            FlowCollector collector,
            ReportCandidates drawn) {
        this.host = host;
        this.port = port;
        this.services = services;
        this.collector = collector;
        this.drawn = drawn;
    }

    @Override
    public void onFlow(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        seen++;
        collector.seen(key.vantage());
        if (!matches(flow)) {
            return;
        }
        if (services != null) {
            services.add(key.vantage().interfaceName(), flow);
        } else {
            collector.add(key, instance, flow);
        }
        if (drawn != null) {
            drawn.add(key, instance, flow);
        }
    }

    /** Keeps only the connection {@code flow} names (--flow without --report); null keeps all. */
    AnalyzedFlows only(String flow) {
        this.only = flow;
        return this;
    }

    /** Flows of the capture, matched or not. */
    long seen() {
        return seen;
    }

    private boolean matches(TcpFlowAnalyzer flow) {
        if (only != null && !ReportCandidates.names(only, flow.client(), flow.server())) {
            return false;
        }
        if (port != null && flow.client().port() != port && flow.server().port() != port) {
            return false;
        }
        return host == null || host.matches(flow.client()) || host.matches(flow.server());
    }
}
