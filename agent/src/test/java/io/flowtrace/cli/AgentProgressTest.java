package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AgentProgressTest {

    @Test
    void barShowsShareRateAndEtaFromTheElapsedTime() {
        // a quarter of the file in 10 s: 30 s to go
        assertThat(AgentProgress.renderBar("f.pcap", 250, 1000, 12_345, 1234.4, 10.0))
                .isEqualTo("f.pcap [########......................]  25% 12,345 packets 1,234/s ETA 0:30");
    }

    @Test
    void withoutAKnownSizeThereIsNoBarAndNoEta() {
        assertThat(AgentProgress.renderBar("-", 500, -1, 99, 10.0, 1.0)).isEqualTo("- 99 packets 10/s");
    }

    @Test
    void aFinishedFileHasNoEta() {
        assertThat(AgentProgress.renderBar("f", 1000, 1000, 5, 5.0, 1.0)).doesNotContain("ETA").contains("100%");
    }
}
