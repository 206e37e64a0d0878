package io.flowtrace.jobs.window;

import io.flowtrace.core.report.SampleReservoir;

/**
 * The windows' sample of per-flow values: core's {@link SampleReservoir}, under the class name the
 * job's window state was written with. Flink's POJO serializer records this name in checkpoints
 * and savepoints and finds the fields in the superclass, so state written before the sampling
 * moved to core restores unchanged (jobs/src/test/resources/state/flow-window-stats-v1.bin).
 */
public final class Reservoir extends SampleReservoir {
    public Reservoir() {}

    public Reservoir(int capacity) {
        super(capacity);
    }
}
