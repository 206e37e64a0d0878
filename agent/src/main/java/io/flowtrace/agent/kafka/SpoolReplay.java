package io.flowtrace.agent.kafka;

import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.agent.spool.SpoolBatch;
import io.flowtrace.agent.spool.SpoolCorruptedException;
import io.flowtrace.agent.spool.SpoolRecord;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replay thread of a {@link SpoolingPublisher}: while the publisher spools, sends the spool back
 * through the same producer in order, moves the spool head past records only once Kafka acknowledged
 * all of them, and switches publishing back to direct when the spool is empty (the ordering argument
 * is on {@link SpoolingPublisher}).
 */
final class SpoolReplay implements Runnable {
    // The publisher's logger: one category for everything the publisher does.
    private static final Logger LOG = LoggerFactory.getLogger(SpoolingPublisher.class);
    private static final int REPLAY_RECORDS = 20_000;
    private static final int REPLAY_BYTES = 4 << 20;
    static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A spool this short is sent while the capture thread waits, so that publishing can go direct again. */
    private static final int CATCH_UP_RECORDS = 2_000;

    private static final long CATCH_UP_BLOCK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Producer<byte[], byte[]> producer;
    private final ProducerGate gate;
    private final String topic;
    private final DiskSpool spool;
    private final AgentMetrics metrics;
    private final PublishMode mode;
    private final RateLimitedLog failureLog;

    private volatile boolean replayBatchFailed;
    private volatile Exception error;

    SpoolReplay(
            Producer<byte[], byte[]> producer,
            ProducerGate gate,
            String topic,
            DiskSpool spool,
            AgentMetrics metrics,
            PublishMode mode,
            RateLimitedLog failureLog) {
        this.producer = producer;
        this.gate = gate;
        this.topic = topic;
        this.spool = spool;
        this.metrics = metrics;
        this.mode = mode;
        this.failureLog = failureLog;
    }

    /** Why the replay stopped before close, or null. */
    Exception error() {
        return error;
    }

    @Override
    public void run() {
        try {
            while (true) {
                if (!mode.spooling) {
                    if (mode.closing) {
                        return;
                    }
                    synchronized (mode) {
                        mode.wait(100);
                    }
                    continue;
                }
                if (mode.closing && System.nanoTime() - mode.closeDeadline >= 0) {
                    keptForNextRun();
                    return;
                }
                if (!replayOnce()) {
                    LockSupport.parkNanos(IDLE_NANOS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException e) {
            if (!mode.closing) {
                stopped(e);
                return;
            }
            // close() closed the producer at its deadline while this thread still offered a record
            // ("Cannot perform operation after producer has been closed"): the shutdown timeout, not
            // a failure; the record was not sent and stays in the spool with the rest.
            keptForNextRun();
        } catch (IOException | SpoolCorruptedException | RuntimeException e) {
            stopped(e);
        }
    }

    private void keptForNextRun() {
        LOG.warn(
                "shutdown timeout: {} records stay in the spool {} for the next run",
                spool.pendingRecords(),
                spool.directory());
    }

    private void stopped(Exception e) {
        error = e;
        LOG.error("replaying the spool {} stopped: {}; records keep being spooled", spool.directory(), e.toString());
    }

    /** Replays one batch from the spool head; false when nothing could be sent. */
    private boolean replayOnce() throws IOException, SpoolCorruptedException {
        SpoolBatch batch = spool.peek(REPLAY_RECORDS, REPLAY_BYTES);
        if (batch.isEmpty()) {
            synchronized (mode) {
                if (spool.isEmpty()) {
                    mode.spooling = false;
                    LOG.info("spool {} replayed; publishing directly to {} again", spool.directory(), topic);
                }
            }
            return true;
        }
        if (batch.size() <= CATCH_UP_RECORDS) {
            return catchUp();
        }
        int sent = send(batch, IDLE_NANOS);
        return flushAndCommit(batch, sent) && sent > 0;
    }

    /**
     * Sends the last few spooled records while holding the capture thread off (it waits to append),
     * then switches to direct publishing: under a steady input the spool would otherwise never be
     * seen empty. The records are committed after the flush, outside the lock; they stay ahead of
     * any direct record in the producer's partition queues.
     */
    private boolean catchUp() throws IOException, SpoolCorruptedException {
        SpoolBatch rest;
        int sent = 0;
        synchronized (mode) {
            rest = spool.peek(CATCH_UP_RECORDS + 1, REPLAY_BYTES);
            if (rest.size() > CATCH_UP_RECORDS) {
                return true;
            }
            sent = send(rest, CATCH_UP_BLOCK_NANOS);
            if (sent == rest.size()) {
                mode.spooling = false;
            }
        }
        // A failed record here only when close() aborted the batches: it stays in the spool for the next run.
        if (!flushAndCommit(rest, sent)) {
            return false;
        }
        if (!mode.spooling) {
            LOG.info("spool {} replayed; publishing directly to {} again", spool.directory(), topic);
        }
        return sent > 0;
    }

    /**
     * Offers the batch's records in order, each blocking up to {@code blockNanos}, until one is not
     * taken; the number sent. Callers hold or do not hold the {@code mode} lock as their switch needs.
     */
    private int send(SpoolBatch batch, long blockNanos) {
        replayBatchFailed = false;
        int sent = 0;
        for (SpoolRecord r : batch.records()) {
            if (!gate.offer(r.key(), r.value(), new ReplayDelivery(r.items()), blockNanos, () -> mode.closing)) {
                break;
            }
            sent++;
        }
        return sent;
    }

    /**
     * Waits for the acknowledgements of the sent records, then drops them from the spool; false,
     * committing nothing, when a record failed (it stays in the spool) or the flush failed on close.
     * Called outside the {@code mode} lock: the flush can wait for as long as the broker is down.
     */
    private boolean flushAndCommit(SpoolBatch batch, int sent) throws IOException {
        try {
            // Waits for every acknowledgement, those of records held from before the outage included:
            // while the broker is down this is where the replay waits.
            producer.flush();
        } catch (KafkaException e) {
            if (mode.closing) {
                return false;
            }
            throw e;
        }
        if (replayBatchFailed) {
            return false;
        }
        spool.commit(batch, sent);
        countReplayed(batch, sent);
        return true;
    }

    private void countReplayed(SpoolBatch batch, int sent) {
        long packets = 0;
        for (int i = 0; i < sent; i++) {
            packets += batch.records().get(i).items();
        }
        metrics.replayed.add(packets);
        metrics.replayedBatches.add(sent);
    }

    /** Completion of a replayed record: it stays in the spool unless every record of its chunk arrived. */
    private final class ReplayDelivery implements Callback {
        private final int packets;

        ReplayDelivery(int packets) {
            this.packets = packets;
        }

        @Override
        public void onCompletion(RecordMetadata md, Exception e) {
            if (SpoolingPublisher.deliveredOrRefused(metrics, e, packets)) {
                return;
            }
            replayBatchFailed = true;
            failureLog.warn(
                    "Kafka did not take a replayed record for {}: {} (it stays in the spool)",
                    topic,
                    SpoolingPublisher.describe(e));
        }
    }
}
