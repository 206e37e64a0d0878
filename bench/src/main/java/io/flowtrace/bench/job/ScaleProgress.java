package io.flowtrace.bench.job;

import java.util.Locale;

/**
 * The scale probe's progress lines ({@link ScalePhase}): records committed by the consumer group and
 * read by the flow vertex, their rates since the previous line, the latest checkpoint, and when the
 * reading last advanced (a stall is no record read, not no commit: commits wait for checkpoints).
 */
final class ScaleProgress {
    private final String kind;
    private final long published;
    private final long startNs = System.nanoTime();

    private long lastNs = startNs;
    private long lastRead;
    private long lastCommitted;
    private long lastFlowCpuNs;
    private long lastRocksCpuNs;
    private long progressNs = startNs;
    private long readDoneNs;
    private long maxDurationMs = -1;
    private long maxDurationId = -1;
    private long seenCheckpoints;
    private String last = "nothing read yet";

    ScaleProgress(String kind, long published) {
        this.kind = kind;
        this.published = published;
    }

    /** One progress line, and remembers this poll. */
    String line(long committed, FlinkRest.Vertex flow, FlinkRest.Checkpoint cp, long heap, long resident) {
        long now = System.nanoTime();
        double dt = (now - lastNs) / 1e9;
        long flowCpu = ThreadCpu.javaThreadsNs("flow-analysis");
        long rocksCpu = ThreadCpu.nativeThreadsNs("rocksdb:");
        long read = flow.recordsIn() - lastRead;
        if (flow.recordsIn() > lastRead || committed > lastCommitted) {
            progressNs = now;
        }
        if (readDoneNs == 0 && flow.recordsIn() >= published) {
            readDoneNs = now;
        }
        if (cp.durationMs() > maxDurationMs) {
            maxDurationMs = cp.durationMs();
            maxDurationId = cp.id();
        }
        seenCheckpoints = cp.completed();
        String checkpoint = cp.id() < 0
                ? "no checkpoint completed"
                : String.format(
                        Locale.ROOT,
                        "checkpoint %d state %s (checkpointed %s) in %,d ms, %d completed, %d failed",
                        cp.id(),
                        ScalePhase.mib(cp.stateSize()),
                        ScalePhase.mib(cp.checkpointedSize()),
                        cp.durationMs(),
                        cp.completed(),
                        cp.failed());
        last = String.format(
                Locale.ROOT,
                "%s %.0f s: committed %,d of %,d records (lag %,d, %,.0f/s), flow vertex read %,d (%,.0f/s), "
                        + "busy %.0f ms/s, back-pressured %.0f ms/s, CPU %,.0f ms/s = %s per record read; RocksDB "
                        + "flush+compaction CPU %,.0f ms/s; %s; heap %,d MiB, resident %,d MiB; load %s",
                kind,
                (now - startNs) / 1e9,
                committed,
                published,
                published - committed,
                (committed - lastCommitted) / dt,
                flow.recordsIn(),
                read / dt,
                flow.busyMsPerS(),
                flow.backPressuredMsPerS(),
                (flowCpu - lastFlowCpuNs) / 1e6 / dt,
                read > 0 ? String.format(Locale.ROOT, "%.1f us", (flowCpu - lastFlowCpuNs) / 1e3 / read) : "-",
                (rocksCpu - lastRocksCpuNs) / 1e6 / dt,
                checkpoint,
                heap >> 20,
                resident >> 20,
                JobBenchContext.load());
        lastNs = now;
        lastRead = flow.recordsIn();
        lastCommitted = committed;
        lastFlowCpuNs = flowCpu;
        lastRocksCpuNs = rocksCpu;
        return "  scale " + last;
    }

    /**
     * CPU of the flow function's threads (the job's own: a MiniCluster per job) per record they read,
     * from the job's start to the last poll.
     */
    double flowCpuUsPerRecord() {
        return lastRead == 0 ? -1 : lastFlowCpuNs / 1e3 / lastRead;
    }

    /** The flow threads' CPU seconds up to the last poll. */
    double flowCpuSeconds() {
        return lastFlowCpuNs / 1e9;
    }

    /** Nanoseconds since the records read or committed last advanced. */
    long stalledNs() {
        return System.nanoTime() - progressNs;
    }

    /** Seconds from the job's start to the poll that saw every record read by the flow vertex. */
    double readSeconds() {
        return ((readDoneNs == 0 ? lastNs : readDoneNs) - startNs) / 1e9;
    }

    /** The slowest checkpoint seen by the polls and how many completed. */
    String checkpointStats() {
        return String.format(
                Locale.ROOT,
                "slowest checkpoint seen %,d ms (checkpoint %d), %d completed",
                maxDurationMs,
                maxDurationId,
                seenCheckpoints);
    }

    String summary() {
        return last;
    }
}
