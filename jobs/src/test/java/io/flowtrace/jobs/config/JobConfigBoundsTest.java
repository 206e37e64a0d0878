package io.flowtrace.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** An absurd bound on the command line is refused in one line that names the option the user typed. */
class JobConfigBoundsTest {
    @Test
    void aSegmentBoundOutsideOneTo2To15IsRefusedNamingTheOption() {
        // 2^15 = 32,768 is core's ceiling per direction; 0, 2^15 + 1 and negatives are outside it
        for (String bad : new String[] {"0", "32769", "-5"}) {
            assertThatThrownBy(() -> JobConfig.fromArgs("--max-segments-per-direction", bad)
                            .analyzerConfig())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--max-segments-per-direction must be 1 to 32768, got " + bad);
        }
        assertThat(JobConfig.fromArgs("--max-segments-per-direction", "32768")
                        .analyzerConfig()
                        .maxSegmentsPerDirection())
                .isEqualTo(32768);
        assertThat(JobConfig.fromArgs("--max-segments-per-direction", "1")
                        .analyzerConfig()
                        .maxSegmentsPerDirection())
                .isEqualTo(1);
    }
}
