package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The offline pipeline over one capture: read → decode → track flows → report each flow once.
 * What {@code flowtrace analyze} and the core benchmarks run; the streaming job replaces the
 * reader with Kafka and the tracker with keyed state.
 *
 * <p>A reader thread reads and decodes into batches of reusable packets (recycled through a free
 * list, so the steady state allocates nothing). With one analyser the calling thread tracks them;
 * with more, the flows are sharded over that many threads by their key and the calling thread
 * merges what they report ({@link ShardedAnalysis}): the listener sees the same flows, events and
 * order either way, always on the calling thread.
 */
public final class CaptureAnalysis {
    private static final int BATCHES = 8;

    private final AnalyzerConfig config;
    private final IntFunction<VantagePoint> vantageOfInterface;
    private final int analysers;
    private int[] watchedUdpPorts = new int[0];

    public CaptureAnalysis(AnalyzerConfig config, IntFunction<VantagePoint> vantageOfInterface) {
        this(config, vantageOfInterface, 1);
    }

    /**
     * @param analysers threads that analyse flows (1: the calling thread; more: shards, see above)
     * @param vantageOfInterface called on the analysing threads
     */
    public CaptureAnalysis(AnalyzerConfig config, IntFunction<VantagePoint> vantageOfInterface, int analysers) {
        if (analysers < 1) {
            throw new IllegalArgumentException("analysers must be at least 1, not " + analysers);
        }
        this.config = config;
        this.vantageOfInterface = vantageOfInterface;
        this.analysers = analysers;
    }

    /**
     * Also counts the UDP datagrams from or to these ports ({@link CaptureSummary#watchedUdp}), on the
     * reader and only for records that are not TCP, so a caller can skip a second pass over a
     * capture that has none (before this, any ARP or DNS packet made {@code analyze} read every
     * capture twice for OpenVPN: docs/BENCHMARKS.md "The reader, the flow key and the JSON writer").
     */
    public CaptureAnalysis watchingUdpPorts(int... ports) {
        this.watchedUdpPorts = ports.clone();
        return this;
    }

    /**
     * Analyses the whole stream. Unrecoverable format errors end the read but flows seen so far are
     * still reported; the summary says what happened. Listeners are called on the calling thread,
     * except {@code errors} and {@code progress}, which the reader thread calls.
     *
     * @param progress called every 65,536 records with the record count (may be a no-op)
     */
    public CaptureSummary run(
            InputStream in,
            FlowTracker.FlowListener flows,
            TcpEventSinkFactory events,
            CaptureErrorListener errors,
            LongConsumer progress)
            throws IOException {
        return run(in, CaptureRecordFilter.ALL, flows, events, errors, progress);
    }

    /**
     * As {@link #run(InputStream, FlowTracker.FlowListener, TcpEventSinkFactory, CaptureErrorListener, LongConsumer)},
     * analysing only the records {@code filter} accepts (called on the reader thread); the others
     * are counted in {@link CaptureSummary#filteredOut} and not decoded.
     */
    public CaptureSummary run(
            InputStream in,
            CaptureRecordFilter filter,
            FlowTracker.FlowListener flows,
            TcpEventSinkFactory events,
            CaptureErrorListener errors,
            LongConsumer progress)
            throws IOException {
        CaptureSummary summary = new CaptureSummary();
        int shards = analysers > 1 ? analysers : 0;
        BlockingQueue<DecodedBatch> free = new ArrayBlockingQueue<>(BATCHES);
        for (int i = 0; i < BATCHES; i++) {
            free.add(new DecodedBatch(shards));
        }
        ShardedAnalysis sharded = shards > 0
                ? new ShardedAnalysis(shards, BATCHES, config, vantageOfInterface, events != TcpEventSinkFactory.NONE)
                : null;
        BlockingQueue<DecodedBatch> full = new ArrayBlockingQueue<>(BATCHES + 1);
        CaptureReading.HandOff handOff = sharded != null ? sharded::handOff : full::put;
        Throwable[] readerFailure = new Throwable[1];
        Thread reader = new Thread(
                () -> {
                    try {
                        CaptureReading.read(in, filter, watchedUdpPorts, summary, errors, progress, free, handOff);
                    } catch (Throwable t) {
                        readerFailure[0] = t;
                        try {
                            handOff.put(DecodedBatch.end(shards, true));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                },
                "flowtrace-capture-reader");
        reader.setDaemon(true);
        List<Thread> threads = sharded != null ? sharded.start() : List.of();
        reader.start();
        long flowsStarted;
        try {
            flowsStarted =
                    sharded != null ? mergeShards(sharded, free, flows, events) : analyse(full, free, flows, events);
            reader.join();
        } catch (InterruptedException e) {
            reader.interrupt();
            threads.forEach(Thread::interrupt);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while analysing", e);
        }
        rethrow(readerFailure[0]);
        summary.flows = flowsStarted;
        return summary;
    }

    /** One analyser: the calling thread tracks every packet; returns the flows started. */
    private long analyse(
            BlockingQueue<DecodedBatch> full,
            BlockingQueue<DecodedBatch> free,
            FlowTracker.FlowListener flows,
            TcpEventSinkFactory events)
            throws InterruptedException {
        FlowTracker tracker = new FlowTracker(config, vantageOfInterface, flows, events);
        while (true) {
            DecodedBatch b = full.take();
            for (int i = 0; i < b.size; i++) {
                tracker.onPacket(b.packets[i]);
            }
            if (b.last) {
                if (!b.failed) {
                    tracker.flush();
                }
                break;
            }
            free.put(b);
        }
        return tracker.flowsStarted();
    }

    private static long mergeShards(
            ShardedAnalysis sharded,
            BlockingQueue<DecodedBatch> free,
            FlowTracker.FlowListener flows,
            TcpEventSinkFactory events)
            throws InterruptedException {
        while (true) {
            DecodedBatch b = sharded.merge(flows, events);
            if (b.last) {
                return sharded.flowsStarted();
            }
            free.put(b);
        }
    }

    private static void rethrow(Throwable failure) throws IOException {
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof UncheckedIOException uio) {
            throw uio.getCause();
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
    }
}
