package io.flowtrace.avro.mapping;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/** A flow that saw no packet: the report walk still visits every field. */
final class EmptyFlow {
    static final Endpoint CLIENT = new Endpoint(new byte[] {10, 0, 0, 1}, 40000);
    static final Endpoint SERVER = new Endpoint(new byte[] {10, 0, 0, 2}, 443);
    static final FlowKey KEY = FlowKey.of(new VantagePoint("lab", "if0"), CLIENT, SERVER);

    private EmptyFlow() {}

    static TcpFlowAnalyzer analyzer() {
        return new TcpFlowAnalyzer(CLIENT, SERVER, false, AnalyzerConfig.DEFAULTS);
    }
}
