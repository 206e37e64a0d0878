package io.flowtrace.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.testing.PrometheusText;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The batch counters in the text format, next to the packet counters (docs/agent.md, metrics table). */
class BatchMetricsEndpointTest {
    @Test
    void rendersBatchesByStageAndFlushesByReasonBesidePackets() {
        AgentMetrics m = new AgentMetrics();
        m.published.add(5000);
        m.publishedBatches.add(12);
        m.spooled.add(700);
        m.spooledBatches.add(3);
        m.replayedBatches.add(2);
        m.batchFlushed("linger");
        m.batchFlushed("linger");
        m.batchFlushed("fin-rst");
        String text = MetricsEndpoint.render(m, Map.of("agent", "h"), 0);
        Map<String, Long> samples = PrometheusText.parse(text);
        assertThat(samples)
                .containsEntry("flowtrace_agent_records_total{agent=h,stage=published}", 5000L)
                .containsEntry("flowtrace_agent_batches_total{agent=h,stage=published}", 12L)
                .containsEntry("flowtrace_agent_batches_total{agent=h,stage=spooled}", 3L)
                .containsEntry("flowtrace_agent_batches_total{agent=h,stage=replayed}", 2L)
                .containsEntry("flowtrace_agent_batches_total{agent=h,stage=accepted}", 0L)
                .containsEntry("flowtrace_agent_batches_total{agent=h,stage=dropped}", 0L)
                .containsEntry("flowtrace_agent_batch_flushes_total{agent=h,reason=linger}", 2L)
                .containsEntry("flowtrace_agent_batch_flushes_total{agent=h,reason=fin-rst}", 1L);
        assertThat(text)
                .contains("# TYPE flowtrace_agent_batches_total counter\n")
                .contains("# TYPE flowtrace_agent_batch_flushes_total counter\n");
    }
}
