package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.metrics.AgentMetrics;
import org.junit.jupiter.api.Test;

class TcpdumpStatsTest {

    @Test
    void readsTheThreeCountersTcpdumpPrintsOnExit() {
        // tcpdump 4.99.3's stderr after SIGTERM, as captured on this machine
        TcpdumpSupervisor.TcpdumpStats s = new TcpdumpSupervisor.TcpdumpStats();
        assertThat(s.parse("tcpdump: listening on lo, link-type EN10MB (Ethernet), snapshot length 128 bytes"))
                .isFalse();
        assertThat(s.parse("240 packets captured")).isTrue();
        assertThat(s.parse("480 packets received by filter")).isTrue();
        assertThat(s.parse("3 packets dropped by kernel")).isTrue();
        assertThat(s.captured).isEqualTo(240);
        assertThat(s.receivedByFilter).isEqualTo(480);
        assertThat(s.droppedByKernel).isEqualTo(3);
    }

    @Test
    void readsTheOneLineReportOfSigusr1AndTheSingularForm() {
        TcpdumpSupervisor.TcpdumpStats s = new TcpdumpSupervisor.TcpdumpStats();
        assertThat(s.parse("1 packet captured, 2 packets received by filter, 0 packets dropped by kernel"))
                .isTrue();
        assertThat(s.captured).isEqualTo(1);
        assertThat(s.receivedByFilter).isEqualTo(2);
        assertThat(s.droppedByKernel).isZero();
    }

    @Test
    void commandCapturesHeadersOnlyInImmediateModeToStdout() {
        TcpdumpSupervisor t = new TcpdumpSupervisor("tcpdump", "eth0", 128, "tcp port 443", new AgentMetrics(), 10_000);
        assertThat(t.command())
                .containsExactly(
                        "tcpdump",
                        "-i",
                        "eth0",
                        "-s",
                        "128",
                        "--immediate-mode",
                        "-U",
                        "-w",
                        "-",
                        "--",
                        "tcp port 443");
    }
}
