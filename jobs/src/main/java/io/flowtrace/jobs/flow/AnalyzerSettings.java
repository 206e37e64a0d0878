package io.flowtrace.jobs.flow;

import io.flowtrace.core.tcp.AnalyzerConfig;
import java.io.Serializable;

/**
 * Core's {@link AnalyzerConfig} as the flow function and the state serializer hold it (both are
 * Java-serialized to the task managers; {@code AnalyzerConfig} is itself {@code Serializable}). It
 * holds the config whole, so a tunable added to core needs no copy here; the serializer's snapshot
 * writes the values, not this class.
 */
public record AnalyzerSettings(AnalyzerConfig config) implements Serializable {

    public static AnalyzerSettings of(AnalyzerConfig c) {
        return new AnalyzerSettings(c);
    }

    public AnalyzerConfig toConfig() {
        return config;
    }
}
