package io.flowtrace.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The /healthz rules on a hand-driven clock: restarts within the window, publishing silence while reading. */
class HealthCheckTest {
    private static final long S = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(1000 * S);
    private final AgentMetrics m = new AgentMetrics();
    private final HealthCheck check = new HealthCheck(m, now::get, 3, Duration.ofMinutes(5), Duration.ofSeconds(60));

    @Test
    void threeRestartsWithinFiveMinutesAreUnhealthyAndHealAfterTheWindow() {
        for (int i = 0; i < 3; i++) {
            m.addSourceCounter("tcpdump_restarts", 1);
            check.sample();
            assertThat(check.status().healthy()).as("after %d restarts", i + 1).isEqualTo(i < 2);
            now.addAndGet(60 * S);
        }
        // the first restart was at t=0, the third at t=120 s: at t=301 s only two remain in the window
        now.set(1000 * S + 301 * S);
        assertThat(check.status().healthy()).isTrue();
    }

    @Test
    void restartsSpreadOverMoreThanTheWindowStayHealthy() {
        for (int i = 0; i < 6; i++) {
            m.addSourceCounter("tcpdump_restarts", 1);
            check.sample();
            assertThat(check.status().healthy()).isTrue();
            now.addAndGet(151 * S); // two per 5 minutes at most
        }
    }

    @Test
    void readingWithoutPublishingForLongerThanTheSilenceIsUnhealthy() {
        check.sample();
        m.read.add(100);
        now.addAndGet(59 * S);
        assertThat(check.status().healthy()).isTrue();
        now.addAndGet(2 * S);
        HealthCheck.Status s = check.status();
        assertThat(s.healthy()).isFalse();
        assertThat(s.reason()).isEqualTo("nothing published for 61 s while 100 records were read");
        m.published.add(100);
        assertThat(check.status().healthy()).isTrue();
    }

    @Test
    void anIdleSourceIsHealthy() {
        check.sample();
        now.addAndGet(3600 * S);
        assertThat(check.status().healthy()).isTrue();
    }

    /** A Kafka outage (reading, nothing published for an hour) makes the agent not ready, never not alive. */
    @Test
    void aPublishingSilenceIsNotReadyButAlive() {
        check.sample();
        m.read.add(100);
        now.addAndGet(3600 * S);
        assertThat(check.status().healthy()).isFalse();
        assertThat(check.liveness()).isEqualTo(new HealthCheck.Status(true, "alive"));
    }

    @Test
    void aTcpdumpCrashLoopIsNotAlive() {
        m.addSourceCounter("tcpdump_restarts", 3);
        HealthCheck.Status s = check.liveness();
        assertThat(s.healthy()).isFalse();
        assertThat(s.reason()).isEqualTo("tcpdump restarted 3 times in the last 300 s");
    }
}
