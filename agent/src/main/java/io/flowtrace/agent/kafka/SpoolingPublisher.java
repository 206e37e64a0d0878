package io.flowtrace.agent.kafka;

import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.agent.spool.DiskSpool;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes records to one Kafka topic and never loses one while the agent runs: when the producer
 * will not take a record (its buffer is full or the topic's metadata is unknown because the broker
 * is unreachable), that record and every later one go to the {@link DiskSpool}; a replay thread sends
 * the spool back in order once Kafka takes records again, then publishing goes direct again.
 *
 * <h2>Why no record is duplicated or reordered</h2>
 * <ul>
 *   <li>The producer is idempotent with {@code delivery.timeout.ms} = ∞ ({@link ProducerSettings}):
 *       a batch the producer accepted is retried by the producer itself, with the same producer id
 *       and sequence numbers, until the broker has it, so the broker drops the copies a lost response
 *       causes. If delivery could time out, the agent could not know whether an in-flight batch was
 *       written (its request may have reached the broker, only the response was lost); re-sending
 *       it would get new sequence numbers and be a duplicate, not re-sending it might be a loss.</li>
 *   <li>So only records the producer <em>refused</em> synchronously (BufferExhaustedException,
 *       metadata TimeoutException from {@code send()}: never appended) go to the spool. From the
 *       first refusal on, every record goes to the spool (single order), and the spool is replayed
 *       through the same producer: a replayed record is appended to its partition's queue after the
 *       records the producer still holds from before the outage, so per-partition (= per-flow) order
 *       is the capture order.</li>
 *   <li>The spool head moves past replayed records only after {@code flush()} returned and none of
 *       their callbacks failed: a crash in between replays them again (at-least-once across crashes).</li>
 *   <li>If an operator sets a finite {@code delivery.timeout.ms}, an expired direct record is spooled
 *       again (at least once: may duplicate and reorder) and counted as failed with its reason.</li>
 * </ul>
 *
 * <p>Threads: {@link #publish} is called by one thread at a time (the capture thread, or for live
 * batching the batch linger timer under the capture publisher's lock); the replay thread
 * ({@link SpoolReplay}) is internal.
 */
public final class SpoolingPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpoolingPublisher.class);

    private final Producer<byte[], byte[]> producer;
    private final ProducerGate gate;
    private final String topic;
    private final DiskSpool spool;
    private final AgentMetrics metrics;
    private final long maxBlockNanos;
    private final Duration shutdownTimeout;
    private final RateLimitedLog failureLog = new RateLimitedLog(LOG, 5_000);
    private final RateLimitedLog spoolFullLog = new RateLimitedLog(LOG, 10_000);
    private final PublishMode mode;
    private final SpoolReplay replay;
    private final Thread replayer;

    private volatile boolean spoolFullAnnounced;

    /**
     * @param maxBlockNanos how long {@link #publish} waits for room in the producer before it spools
     *     (back-pressure for file replay; 0 for live sources, which must never stall the capture)
     */
    public SpoolingPublisher(
            Producer<byte[], byte[]> producer,
            String topic,
            DiskSpool spool,
            AgentMetrics metrics,
            long maxBlockNanos,
            Duration shutdownTimeout) {
        this.producer = producer;
        this.topic = topic;
        this.spool = spool;
        this.metrics = metrics;
        this.maxBlockNanos = maxBlockNanos;
        this.shutdownTimeout = shutdownTimeout;
        this.gate = new ProducerGate(producer, topic);
        gate.awaitMetadata();
        // What a previous run left in the spool goes out before anything new.
        this.mode = new PublishMode(!spool.isEmpty());
        if (mode.spooling) {
            LOG.info(
                    "spool {} holds {} records ({} packets or events) from a previous run; replaying them first",
                    spool.directory(),
                    spool.pendingRecords(),
                    spool.pendingItems());
        }
        this.replay = new SpoolReplay(producer, gate, topic, spool, metrics, mode, failureLog);
        this.replayer = new Thread(replay, "flowtrace-spool-replay-" + topic);
        this.replayer.setDaemon(true);
        this.replayer.start();
    }

    /** Sends one record that carries one packet or event; see {@link #publish(byte[], byte[], int)}. */
    public void publish(byte[] key, byte[] value) throws IOException {
        publish(key, value, 1);
    }

    /**
     * Sends one record, or spools it when Kafka cannot take it now; counts it as dropped only if the
     * spool is full. {@code packets}: the packets (or events) the record carries, for the counters.
     */
    public void publish(byte[] key, byte[] value, int packets) throws IOException {
        metrics.accepted.add(packets);
        metrics.acceptedBatches.increment();
        if (!mode.spooling) {
            if (gate.offer(key, value, new DirectDelivery(key, value, packets), maxBlockNanos, () -> mode.closing)) {
                return;
            }
            // spoolOrDrop switches to spooling under the same lock as the append: switched here first,
            // the replay saw spooling with an empty spool and switched straight back to direct publishing
            LOG.warn(
                    "Kafka is not taking records for {} ({}); spooling to {}",
                    topic,
                    describe(gate.lastRefusal()),
                    spool.directory());
        }
        spoolOrDrop(key, value, packets);
    }

    /** True while records go to the spool rather than straight to Kafka. */
    public boolean spooling() {
        return mode.spooling;
    }

    public long spoolPendingRecords() {
        return spool.pendingRecords();
    }

    /** Where the spool lives (what a later start with the same --spool-dir replays first). */
    public Path spoolDirectory() {
        return spool.directory();
    }

    /** Packets (or events) in the records waiting in the spool. */
    public long spoolPendingPackets() {
        return spool.pendingItems();
    }

    /**
     * Flushes everything: waits (up to the shutdown timeout) until the spool is replayed and Kafka
     * acknowledged every record, then closes the producer and the spool. Whatever is still unsent
     * then stays in (or is put back into) the spool for the next run.
     */
    @Override
    public void close() throws IOException {
        mode.closeDeadline = System.nanoTime() + shutdownTimeout.toNanos();
        mode.closing = true;
        synchronized (mode) {
            mode.notifyAll();
        }
        try {
            replayer.join(Math.max(1, shutdownTimeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long remaining = Math.max(0, mode.closeDeadline - System.nanoTime());
        // close(timeout) waits for acknowledgements; past the timeout it aborts the batches, whose
        // callbacks then put direct records back into the spool (it is still open).
        producer.close(Duration.ofNanos(remaining));
        try {
            replayer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        spool.close();
        if (replay.error() != null) {
            throw new IOException("replaying the spool " + spool.directory() + " failed", replay.error());
        }
    }

    private void spoolOrDrop(byte[] key, byte[] value, int packets) throws IOException {
        boolean stored;
        synchronized (mode) {
            // The replay may have emptied the spool and switched to direct publishing while this
            // record waited for the lock (it saw spooling before catchUp cleared it): without this
            // the record would sit in the spool with nobody replaying it until the next run.
            mode.spooling = true;
            stored = spool.append(key, value, packets);
        }
        if (stored) {
            metrics.spooled.add(packets);
            metrics.spooledBatches.increment();
            spoolFullAnnounced = false;
            return;
        }
        metrics.dropped.add(packets);
        metrics.droppedBatches.increment();
        if (!spoolFullAnnounced) {
            spoolFullAnnounced = true;
            // Loud on purpose: this is data loss, the one thing the agent exists to avoid.
            System.err.printf(
                    Locale.ROOT,
                    "flowtrace agent: SPOOL FULL (%s, %,d of %,d bytes): Kafka is still unreachable; "
                            + "DROPPING records until it drains (%,d dropped so far)%n",
                    spool.directory(),
                    spool.sizeBytes(),
                    spool.maxBytes(),
                    metrics.dropped.sum());
        }
        spoolFullLog.warn("spool {} full: {} records dropped so far", spool.directory(), metrics.dropped.sum());
    }

    /**
     * Completion of a record sent directly. It keeps the record (Kafka's callback does not hand it
     * back) so that a record Kafka gives up on (a finite delivery.timeout.ms set by the operator, or
     * the batches {@code close()} aborts at the shutdown timeout) goes back to the spool instead of
     * being lost.
     */
    private final class DirectDelivery implements Callback {
        private final byte[] key;
        private final byte[] value;
        private final int packets;

        DirectDelivery(byte[] key, byte[] value, int packets) {
            this.key = key;
            this.value = value;
            this.packets = packets;
        }

        @Override
        public void onCompletion(RecordMetadata md, Exception e) {
            if (deliveredOrRefused(metrics, e, packets)) {
                return;
            }
            metrics.failed(e.getClass().getSimpleName());
            if (e instanceof RetriableException || mode.closing) {
                failureLog.warn(
                        "Kafka gave up on a record for {}: {}; spooling it again (it may now arrive twice "
                                + "or out of order)",
                        topic,
                        describe(e));
                try {
                    synchronized (mode) {
                        mode.spooling = true;
                    }
                    spoolOrDrop(key, value, packets);
                } catch (IOException io) {
                    metrics.dropped.add(packets);
                    metrics.droppedBatches.increment();
                    failureLog.warn("cannot spool a record Kafka gave up on: {}", io.toString());
                }
            } else {
                failureLog.warn("Kafka rejected a record for {}: {} (not retried)", topic, describe(e));
            }
        }
    }

    /**
     * Counts a record Kafka took; true when its completion needs nothing more: delivered, or refused
     * by the gate (the sender saw the refusal too: send() spools the record, a replay leaves it in
     * the spool).
     */
    static boolean deliveredOrRefused(AgentMetrics metrics, Exception e, int packets) {
        if (e == null) {
            metrics.published.add(packets);
            metrics.publishedBatches.increment();
            return true;
        }
        return ProducerGate.isRefusal(e);
    }

    static String describe(Exception e) {
        return e == null ? "no reason given" : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
