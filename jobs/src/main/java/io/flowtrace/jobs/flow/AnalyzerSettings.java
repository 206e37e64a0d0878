package io.flowtrace.jobs.flow;

import io.flowtrace.core.tcp.AnalyzerConfig;
import java.io.Serializable;

/**
 * Core's {@link AnalyzerConfig} in a form Flink can ship to the task managers: operators and
 * serializers are Java-serialized, and core's record is not {@code Serializable} (core has no
 * reason to know about Java serialization). Same five values, same meaning.
 */
public record AnalyzerSettings(long minRtoNanos, long defaultReorderWindowNanos, long minReorderWindowNanos,
        long idleTimeoutNanos, long halfOpenTimeoutNanos) implements Serializable {

    public static AnalyzerSettings of(AnalyzerConfig c) {
        return new AnalyzerSettings(c.minRtoNanos(), c.defaultReorderWindowNanos(), c.minReorderWindowNanos(),
                c.idleTimeoutNanos(), c.halfOpenTimeoutNanos());
    }

    public AnalyzerConfig toConfig() {
        return new AnalyzerConfig(minRtoNanos, defaultReorderWindowNanos, minReorderWindowNanos, idleTimeoutNanos,
                halfOpenTimeoutNanos);
    }
}
