package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The offline pipeline over one capture: read → decode → track flows → report each flow once.
 * What {@code flowtrace analyze} and the core benchmarks run; the streaming job replaces the
 * reader with Kafka and the tracker with keyed state.
 *
 * <p>Two stages on two threads, so both cores work: a reader thread reads and decodes into
 * batches of reusable packets; the calling thread analyses them. Batches are recycled through a
 * free list, so the steady state allocates nothing.
 */
public final class CaptureAnalysis {
    private static final int BATCH = 1024;
    private static final int BATCHES = 8;

    private final AnalyzerConfig config;
    private final IntFunction<VantagePoint> vantageOfInterface;

    public CaptureAnalysis(AnalyzerConfig config, IntFunction<VantagePoint> vantageOfInterface) {
        this.config = config;
        this.vantageOfInterface = vantageOfInterface;
    }

    private static final class Batch {
        final DecodedPacket[] packets = new DecodedPacket[BATCH];
        int size;
        boolean last;

        Batch() {
            for (int i = 0; i < BATCH; i++) {
                packets[i] = new DecodedPacket();
            }
        }
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
        FlowTracker tracker = new FlowTracker(config, vantageOfInterface, flows, events);
        BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES);
        BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
        for (int i = 0; i < BATCHES; i++) {
            free.add(new Batch());
        }
        Throwable[] readerFailure = new Throwable[1];
        Thread reader = new Thread(
                () -> {
                    try {
                        read(in, filter, summary, errors, progress, full, free);
                    } catch (Throwable t) {
                        readerFailure[0] = t;
                        Batch end = new Batch();
                        end.last = true;
                        full.offer(end);
                    }
                },
                "flowtrace-capture-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            while (true) {
                Batch b = full.take();
                for (int i = 0; i < b.size; i++) {
                    tracker.onPacket(b.packets[i]);
                }
                if (b.last) {
                    break;
                }
                free.put(b);
            }
            reader.join();
        } catch (InterruptedException e) {
            reader.interrupt();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while analysing", e);
        }
        if (readerFailure[0] instanceof IOException io) {
            throw io;
        }
        if (readerFailure[0] instanceof UncheckedIOException uio) {
            throw uio.getCause();
        }
        if (readerFailure[0] instanceof RuntimeException re) {
            throw re;
        }
        if (readerFailure[0] instanceof Error err) {
            throw err;
        }
        tracker.flush();
        summary.flows = tracker.flowsStarted();
        return summary;
    }

    private static void read(
            InputStream in,
            CaptureRecordFilter filter,
            CaptureSummary summary,
            CaptureErrorListener errors,
            LongConsumer progress,
            BlockingQueue<Batch> full,
            BlockingQueue<Batch> free)
            throws IOException, InterruptedException {
        CaptureErrorListener counting = e -> {
            summary.formatErrors++;
            errors.onError(e);
        };
        Batch batch = free.take();
        batch.size = 0;
        try (CaptureReader reader = CaptureReader.open(in, counting)) {
            summary.format = reader.formatDescription();
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                summary.records++;
                summary.bytesRead += rec.capturedLength;
                if ((summary.records & 0xffff) == 0) {
                    progress.accept(summary.records);
                }
                if (!filter.accept(rec)) {
                    summary.filteredOut++;
                    continue;
                }
                DecodedPacket p = batch.packets[batch.size];
                DecodeStatus status = decoder.decode(rec, p);
                summary.byStatus[status.ordinal()]++;
                if (status == DecodeStatus.TCP && ++batch.size == BATCH) {
                    full.put(batch);
                    batch = free.take();
                    batch.size = 0;
                }
            }
            summary.format = reader.formatDescription();
        } catch (CaptureFormatException e) {
            summary.fatalError = e.getMessage();
        }
        batch.last = true;
        full.put(batch);
    }
}
