package io.flowtrace.jobs.flow;

import io.flowtrace.core.tcp.AnalyzerConfig;
import java.io.Serializable;

/**
 * The five values of core's {@link AnalyzerConfig}, as the flow function and the state serializer
 * hold them (both are Java-serialized to the task managers). {@code AnalyzerConfig} is itself
 * {@code Serializable}, so this copy adds nothing but the conversion; it can be replaced by
 * {@code AnalyzerConfig} wherever it is held (the serializer's snapshot writes the values, not
 * this class).
 */
public record AnalyzerSettings(
        long minRtoNanos,
        long defaultReorderWindowNanos,
        long minReorderWindowNanos,
        long idleTimeoutNanos,
        long halfOpenTimeoutNanos)
        implements Serializable {

    public static AnalyzerSettings of(AnalyzerConfig c) {
        return new AnalyzerSettings(
                c.minRtoNanos(),
                c.defaultReorderWindowNanos(),
                c.minReorderWindowNanos(),
                c.idleTimeoutNanos(),
                c.halfOpenTimeoutNanos());
    }

    public AnalyzerConfig toConfig() {
        return new AnalyzerConfig(
                minRtoNanos, defaultReorderWindowNanos, minReorderWindowNanos, idleTimeoutNanos, halfOpenTimeoutNanos);
    }
}
