package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.flow.SweepClock;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.IntFunction;

/**
 * The analysis spread over several threads with the output of one: each shard owns the flows whose
 * canonical key hashes to it ({@link io.flowtrace.core.flow.CanonicalKey#shard}) and runs its own tracker over them; the
 * reader notes which shard owns each packet and, with the same {@link SweepClock} a single tracker
 * uses, after which packets every shard sweeps for idle flows; the calling thread merges what the
 * shards report, batch by batch, into the order one tracker would have reported it
 * ({@link ShardOutput}). Every batch goes to every shard (each takes its own packets) and comes back
 * through one queue per shard, so the merge takes batch k from every shard before batch k + 1.
 */
final class ShardedAnalysis {
    private final int shards;
    private final BlockingQueue<DecodedBatch>[] todo;
    private final BlockingQueue<DecodedBatch>[] done;
    private final FlowTracker[] trackers;
    private final ShardOutput[] outputs;
    private final Throwable[] failures;
    private final SweepClock sweepClock = new SweepClock();
    private long nextIndex;

    @SuppressWarnings("unchecked")
    ShardedAnalysis(
            int shards,
            int queued,
            AnalyzerConfig config,
            IntFunction<VantagePoint> vantageOfInterface,
            boolean withEvents) {
        this.shards = shards;
        todo = new BlockingQueue[shards];
        done = new BlockingQueue[shards];
        trackers = new FlowTracker[shards];
        outputs = new ShardOutput[shards];
        failures = new Throwable[shards];
        for (int s = 0; s < shards; s++) {
            todo[s] = new ArrayBlockingQueue<>(queued + 1);
            done[s] = new ArrayBlockingQueue<>(queued + 1);
            outputs[s] = new ShardOutput(withEvents);
            trackers[s] = new FlowTracker(config, vantageOfInterface, outputs[s], outputs[s].eventSinks())
                    .reportingOrderTo(outputs[s]);
        }
    }

    /** Starts the shards' threads (daemons: a failed run cannot keep the JVM alive). */
    List<Thread> start() {
        List<Thread> threads = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            int shard = s;
            Thread t = new Thread(() -> runShard(shard), "flowtrace-analyser-" + s);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        return threads;
    }

    /** On the reader thread: who owns which packet, where the sweeps fall; then to every shard. */
    void handOff(DecodedBatch b) throws InterruptedException {
        b.firstIndex = nextIndex;
        nextIndex += b.size;
        Arrays.fill(b.memberCount, 0);
        b.sweeps = 0;
        for (int k = 0; k < b.size; k++) {
            DecodedPacket p = b.packets[k];
            int s = b.keys[k].of(p).shard(shards);
            b.members[s][b.memberCount[s]++] = k;
            if (sweepClock.due(p.timestampNanos)) {
                b.sweepPosition[b.sweeps] = k;
                b.sweepNow[b.sweeps++] = p.timestampNanos;
            }
        }
        for (BlockingQueue<DecodedBatch> q : todo) {
            q.put(b);
        }
    }

    private void runShard(int s) {
        FlowTracker tracker = trackers[s];
        ShardOutput out = outputs[s];
        try {
            while (true) {
                DecodedBatch b = todo[s].take();
                boolean last = b.last; // once handed back, the batch may be refilled by the reader at once
                if (failures[s] == null) {
                    try {
                        analyse(s, b, tracker, out);
                    } catch (RuntimeException | Error e) {
                        failures[s] = e; // reported by the merge; keep passing batches on so nothing waits forever
                    }
                }
                done[s].put(b);
                if (last) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void analyse(int s, DecodedBatch b, FlowTracker tracker, ShardOutput out) {
        out.collectInto(b.outputs.get(s));
        int[] mine = b.members[s];
        int count = b.memberCount[s];
        int m = 0;
        for (int w = 0; w <= b.sweeps; w++) {
            int until = w < b.sweeps ? b.sweepPosition[w] : Integer.MAX_VALUE;
            while (m < count && mine[m] <= until) {
                int k = mine[m++];
                out.atPacket(b.firstIndex + k);
                tracker.track(b.packets[k], b.firstIndex + k, b.keys[k]);
            }
            if (w < b.sweeps) {
                out.inSweepAfter(b.firstIndex + until);
                tracker.sweep(b.sweepNow[w]);
            }
        }
        if (b.last && !b.failed) {
            out.atEnd();
            tracker.flush();
        }
    }

    /**
     * On the calling thread: takes batch k back from every shard, replays their output in one
     * tracker's order, and returns the batch (to be recycled unless it is the last).
     */
    DecodedBatch merge(FlowTracker.FlowListener flows, TcpEventSinkFactory events) throws InterruptedException {
        DecodedBatch b = null;
        for (int s = 0; s < shards; s++) {
            b = done[s].take();
        }
        rethrowFailure();
        mergeOutputs(b.outputs, flows, events);
        return b;
    }

    private void rethrowFailure() {
        for (Throwable t : failures) {
            if (t instanceof RuntimeException re) {
                throw re;
            }
            if (t instanceof Error err) {
                throw err;
            }
        }
    }

    /** A k-way merge of the shards' sorted lists; empty lists (most batches) cost one check each. */
    private static void mergeOutputs(
            List<List<ShardOutput.Emitted>> lists, FlowTracker.FlowListener flows, TcpEventSinkFactory events) {
        int n = lists.size();
        int[] at = null;
        while (true) {
            int best = -1;
            ShardOutput.Emitted head = null;
            for (int s = 0; s < n; s++) {
                List<ShardOutput.Emitted> l = lists.get(s);
                int i = at == null ? 0 : at[s];
                if (i < l.size() && (head == null || l.get(i).compareTo(head) < 0)) {
                    head = l.get(i);
                    best = s;
                }
            }
            if (head == null) {
                break;
            }
            if (at == null) {
                at = new int[n];
            }
            at[best]++;
            replay(head, flows, events);
        }
        for (List<ShardOutput.Emitted> l : lists) {
            l.clear();
        }
    }

    private static void replay(ShardOutput.Emitted e, FlowTracker.FlowListener flows, TcpEventSinkFactory events) {
        ShardOutput.FlowOut f = e.flow();
        if (e.analyzer() != null) {
            flows.onFlow(f.key, f.instance, e.analyzer());
        } else if (e.event() == null) {
            f.sink = events.forFlow(f.key, f.instance);
        } else {
            f.sink.accept(e.event());
        }
    }

    long flowsStarted() {
        long n = 0;
        for (FlowTracker t : trackers) {
            n += t.flowsStarted();
        }
        return n;
    }
}
