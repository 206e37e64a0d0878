package io.flowtrace.agent.kafka;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that calls {@code producer.send()}, and tells a record the producer <em>refused</em>
 * (never appended: buffer full, topic metadata unknown) from one it accepted. With max.block.ms=0
 * Kafka reports a refusal by invoking the callback synchronously, inside {@code send()}, with a
 * {@link BufferExhaustedException} or {@link TimeoutException}; the callbacks ask
 * {@link #isRefusal(Exception)} and leave such a record to the caller, who spools it.
 */
final class ProducerGate {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerGate.class);
    private static final long METADATA_WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Per sending thread: inside send()? and the refusal the callback saw there. */
    private static final class SendState {
        boolean inSend;
        Exception refused;
    }

    private static final ThreadLocal<SendState> STATE = ThreadLocal.withInitial(SendState::new);

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private volatile Exception lastRefusal;
    /**
     * The warm-up found no metadata for the topic and no record has been accepted since: a refusal
     * then is the broker being away, so {@link #offer} does not wait out its block time for it (a
     * file replay with no broker spooled its first record after 5 s of warm-up and 5 s more here).
     */
    private volatile boolean noMetadata;

    ProducerGate(Producer<byte[], byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    /**
     * Offers a record, retrying every millisecond for up to {@code blockNanos} while the producer
     * refuses it. True when the producer accepted it (its callback will say how delivery ended).
     */
    boolean offer(byte[] key, byte[] value, Callback callback, long blockNanos, BooleanSupplier giveUp) {
        long deadline = System.nanoTime() + blockNanos;
        SendState state = STATE.get();
        while (true) {
            state.refused = null;
            state.inSend = true;
            try {
                producer.send(new ProducerRecord<>(topic, key, value), callback);
            } finally {
                state.inSend = false;
            }
            if (state.refused == null) {
                noMetadata = false;
                return true;
            }
            lastRefusal = state.refused;
            boolean brokerAway = noMetadata && state.refused instanceof TimeoutException;
            if (brokerAway || giveUp.getAsBoolean() || System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * For callbacks: true (and noted for {@link #offer}) when {@code e} is a synchronous refusal
     * inside send() on this thread; the record was not appended and the caller spools it.
     */
    static boolean isRefusal(Exception e) {
        SendState state = STATE.get();
        if (state.inSend && (e instanceof BufferExhaustedException || e instanceof TimeoutException)) {
            state.refused = e;
            return true;
        }
        return false;
    }

    Exception lastRefusal() {
        return lastRefusal;
    }

    /**
     * With max.block.ms=0 the first send() to a topic is refused until its metadata arrives; wait
     * for it (up to 5 s: an unreachable broker at start means spooling from the first record).
     */
    void awaitMetadata() {
        long deadline = System.nanoTime() + METADATA_WARM_UP_NANOS;
        while (true) {
            try {
                producer.partitionsFor(topic);
                return;
            } catch (TimeoutException e) {
                if (System.nanoTime() - deadline >= 0) {
                    noMetadata = true;
                    LOG.warn(
                            "no metadata for topic {} after {} s (broker unreachable or topic missing); records "
                                    + "will be spooled until it comes",
                            topic,
                            TimeUnit.NANOSECONDS.toSeconds(METADATA_WARM_UP_NANOS));
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }
}
