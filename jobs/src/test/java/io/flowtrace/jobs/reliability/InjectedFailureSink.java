package io.flowtrace.jobs.reliability;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A test-only extra sink on one of the job's outputs (it writes nothing) that throws once, when the
 * test has armed it and {@code afterRecords} records have reached it since: an operator failure at a
 * moment the test chooses, in the same task chain as the real sinks of that output. The trigger
 * lives in a static registry because the MiniCluster runs the task in this JVM while the sink
 * object itself is serialized into the job graph.
 */
final class InjectedFailureSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Trigger> TRIGGERS = new ConcurrentHashMap<>();

    /** What the test controls and observes. */
    static final class Trigger {
        private final AtomicBoolean armed = new AtomicBoolean();
        private final AtomicBoolean fired = new AtomicBoolean();
        private final AtomicLong seen = new AtomicLong();
        private volatile long afterRecords;

        /** From now on, fail at the {@code afterRecords}-th record (over all subtasks). */
        void arm(long afterRecords) {
            this.afterRecords = afterRecords;
            seen.set(0);
            armed.set(true);
        }

        boolean fired() {
            return fired.get();
        }

        private void onRecord() throws IOException {
            if (armed.get()
                    && !fired.get()
                    && seen.incrementAndGet() >= afterRecords
                    && fired.compareAndSet(false, true)) {
                throw new IOException("injected failure (reliability test) after " + afterRecords + " records");
            }
        }
    }

    private final String name;

    private InjectedFailureSink(String name) {
        this.name = name;
    }

    /** A new trigger and the sink bound to it. */
    static <T> InjectedFailureSink<T> create(String name) {
        TRIGGERS.put(name, new Trigger());
        return new InjectedFailureSink<>(name);
    }

    static Trigger trigger(String name) {
        return TRIGGERS.get(name);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        Trigger trigger = TRIGGERS.get(name);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context context) throws IOException {
                trigger.onRecord();
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
