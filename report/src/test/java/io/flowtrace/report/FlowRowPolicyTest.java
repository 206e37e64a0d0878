package io.flowtrace.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import org.junit.jupiter.api.Test;

/** The flow_summary output policy: expectations written by hand, no analyser involved. */
class FlowRowPolicyTest {
    private static final double SETUP_THRESHOLD_US = 200_000; // --notable-setup-ms 200

    private static FlowRowPolicy.Signals clean() {
        // a short connection without a problem: 3 ms setup
        return new FlowRowPolicy.Signals(0, 0, false, 0, false, 3_000.0);
    }

    @Test
    void aCleanFlowIsNotNotable() {
        assertThat(clean().notable(SETUP_THRESHOLD_US)).isFalse();
        assertThat(new FlowRowPolicy.Signals(0, 0, false, 0, false, Double.NaN).notable(SETUP_THRESHOLD_US))
                .as("no completed handshake is not a slow setup")
                .isFalse();
    }

    @Test
    void eachSignalAloneMakesAFlowNotable() {
        assertThat(new FlowRowPolicy.Signals(1, 0, false, 0, false, 3_000.0).notable(SETUP_THRESHOLD_US))
                .as("one retransmission")
                .isTrue();
        assertThat(new FlowRowPolicy.Signals(0, 1, false, 0, false, 3_000.0).notable(SETUP_THRESHOLD_US))
                .as("an RTO")
                .isTrue();
        assertThat(new FlowRowPolicy.Signals(0, 0, true, 0, false, 3_000.0).notable(SETUP_THRESHOLD_US))
                .as("a premature slow-start exit")
                .isTrue();
        assertThat(new FlowRowPolicy.Signals(0, 0, false, 1, false, 3_000.0).notable(SETUP_THRESHOLD_US))
                .as("a SYN retry")
                .isTrue();
        assertThat(new FlowRowPolicy.Signals(0, 0, false, 0, true, 3_000.0).notable(SETUP_THRESHOLD_US))
                .as("a reset")
                .isTrue();
    }

    @Test
    void theSetupRuleIsStrictlyAboveTheThreshold() {
        assertThat(new FlowRowPolicy.Signals(0, 0, false, 0, false, 200_000.0).notable(SETUP_THRESHOLD_US))
                .isFalse();
        assertThat(new FlowRowPolicy.Signals(0, 0, false, 0, false, 200_000.5).notable(SETUP_THRESHOLD_US))
                .isTrue();
    }

    @Test
    void theSampleIsTheCrc32cOfKeyAndInstance() {
        // CRC-32C computed by hand (Python, bitwise, polynomial 0x82F63B78) of the exact texts:
        // "lab/if0|10.0.0.1:40000|10.0.0.2:443 1796000000000000" -> 1636132282 = 0.3809 of 2^32
        // "lab/if0|10.0.0.1:40001|10.0.0.2:443 1796000000000000" -> 421659959 = 0.0982 of 2^32
        FlowKey a = key(40000);
        FlowKey b = key(40001);
        long instance = 1_796_000_000_000_000L;
        assertThat(a.canonical() + " " + instance).isEqualTo("lab/if0|10.0.0.1:40000|10.0.0.2:443 1796000000000000");
        assertThat(FlowRowPolicy.sampled(a, instance, 0.38)).isFalse();
        assertThat(FlowRowPolicy.sampled(a, instance, 0.39)).isTrue();
        assertThat(FlowRowPolicy.sampled(b, instance, 0.09)).isFalse();
        assertThat(FlowRowPolicy.sampled(b, instance, 0.10)).isTrue();
        assertThat(FlowRowPolicy.sampled(a, instance, 0)).isFalse();
        assertThat(FlowRowPolicy.sampled(b, instance, 1)).isTrue();
    }

    @Test
    void aSampleOfAQuarterTakesAboutAQuarter() {
        int sampled = 0;
        for (int port = 1024; port < 11_024; port++) {
            if (FlowRowPolicy.sampled(key(port), 1_796_000_000_000_000L, 0.25)) {
                sampled++;
            }
        }
        assertThat(sampled).isBetween(2_300, 2_700); // 10,000 flows: 2,500 ± 4.6 σ
    }

    @Test
    void optionsOutsideTheirRangeAreRefused() {
        assertThat(FlowRowPolicy.Rows.parse("notable")).isEqualTo(FlowRowPolicy.Rows.NOTABLE);
        assertThatThrownBy(() -> FlowRowPolicy.Rows.parse("some"))
                .hasMessage("--flow-rows must be all, notable or none, got 'some'");
        assertThatThrownBy(() -> new FlowRowPolicy(FlowRowPolicy.Rows.NONE, 1.5, 0))
                .hasMessage("--flow-rows-sample must be a fraction from 0 to 1, got 1.5");
    }

    private static FlowKey key(int clientPort) {
        return FlowKey.of(
                new VantagePoint("lab", "if0"),
                Endpoint.parse("10.0.0.1:" + clientPort),
                Endpoint.parse("10.0.0.2:443"));
    }
}
