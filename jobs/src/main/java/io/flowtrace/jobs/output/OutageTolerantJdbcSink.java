package io.flowtrace.jobs.output;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC connector's at-least-once sink, made to ride out a database outage instead of killing
 * the TaskManager (docs/reliability.md, "PostgreSQL outage").
 *
 * <p>What flink-connector-jdbc 4.0.0 does on an outage
 * ({@code org.apache.flink.connector.jdbc.internal.JdbcOutputFormat}): a failed {@code executeBatch}
 * makes {@code flush()} call {@code updateExecutor(reconnect)}, which first closes the prepared
 * statement
 * ({@code org.apache.flink.connector.jdbc.internal.executor.SimpleBatchStatementExecutor.closeStatements}
 * sets it to null) and then reconnects; while the database is down the reconnect throws, so the executor is
 * left without a statement. The next flush (the connector's own timer thread, or {@code close()} on
 * the task's failure path) hands that null statement to our row builder: a NullPointerException,
 * which the retry loop does not catch (it catches SQLException), thrown from {@code close()} while
 * the task is already failing, where Flink treats it as fatal and exits the TaskManager. The timer
 * thread also keeps each failure in {@code flushException} and wraps it again on every tick
 * (FLINK-24677, still unfixed in 4.0.0), and every later write rethrows it.
 *
 * <p>So: the connector is built without its timer thread (batch interval 0) and its row builder
 * fails with an SQLException, not an NPE, when it has no statement (the connector's retry then
 * reconnects); this writer flushes on a processing-time timer in the task thread, retries a failed
 * write or flush with {@link OutageBackoff} (each attempt logged) until the outage has lasted
 * {@code giveUpAfterMs}, and then fails the task cleanly, for the restart strategy to restart it.
 * {@code close()} never throws: rows not written by then were not part of a checkpoint and come back
 * from the last one.
 *
 * <p>The writer collects a batch itself, one row per key of the table ({@link NewestPerKey}: the row
 * the upsert would leave), and hands it to the connector at {@code batchSize} rows, on the timer and
 * at a checkpoint's flush; the connection runs with pgjdbc's {@code reWriteBatchedInserts}
 * ({@link PostgresSinks#withBatchedInserts}), which sends the batch as multi-row {@code INSERT}s.
 */
public final class OutageTolerantJdbcSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;

    private final Upsert<T> rows;
    private final JdbcSink<T> jdbc;
    private final OutageBackoff backoff;
    private final long flushIntervalMs;
    private final int batchSize;

    /**
     * {@code jdbc} must be built with batch interval 0, a batch size of at least {@code batchSize} and
     * {@link #guarded} row builders of {@code rows}.
     */
    public OutageTolerantJdbcSink(
            Upsert<T> rows, JdbcSink<T> jdbc, OutageBackoff backoff, long flushIntervalMs, int batchSize) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
        }
        this.rows = rows;
        this.jdbc = jdbc;
        this.backoff = backoff;
        this.flushIntervalMs = flushIntervalMs;
        this.batchSize = batchSize;
    }

    /** A row builder that fails like a lost connection (SQLException) when the connector has no statement. */
    public static <T> JdbcStatementBuilder<T> guarded(JdbcStatementBuilder<T> row) {
        return new Guarded<>(row);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        Writer<T> w = new Writer<>(
                rows.table(),
                new NewestPerKey<>(rows),
                batchSize,
                backoff,
                flushIntervalMs,
                context.getProcessingTimeService());
        WriterInitContext withoutCopies = new WithoutInputCopies(context);
        w.open(() -> jdbc.createWriter(withoutCopies));
        return w;
    }

    /**
     * The connector's writer deep-copies every record it buffers when object reuse is on
     * ({@code org.apache.flink.connector.jdbc.internal.JdbcOutputSerializer}), in case an upstream operator changes a record after emitting
     * it. None of ours does (docs/job.md, "Object reuse and types": every operator emits a new
     * record, and records from the network are fresh), so the copy, a full Avro deep copy per flow
     * version in the job's profile (docs/BENCHMARKS.md, "Job"), is skipped: the writer is told
     * object reuse is off.
     */
    private static final class WithoutInputCopies implements WriterInitContext {
        private final WriterInitContext context;

        WithoutInputCopies(WriterInitContext context) {
            this.context = context;
        }

        @Override
        public boolean isObjectReuseEnabled() {
            return false;
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return context.getUserCodeClassLoader();
        }

        @Override
        public MailboxExecutor getMailboxExecutor() {
            return context.getMailboxExecutor();
        }

        @Override
        public ProcessingTimeService getProcessingTimeService() {
            return context.getProcessingTimeService();
        }

        @Override
        public SinkWriterMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public SerializationSchema.InitializationContext asSerializationSchemaInitializationContext() {
            return context.asSerializationSchemaInitializationContext();
        }

        @Override
        public <IN> TypeSerializer<IN> createInputSerializer() {
            return context.createInputSerializer();
        }

        @Override
        public <M> Optional<Consumer<M>> metadataConsumer() {
            return context.metadataConsumer();
        }

        @Override
        public OptionalLong getRestoredCheckpointId() {
            return context.getRestoredCheckpointId();
        }

        @Override
        public JobInfo getJobInfo() {
            return context.getJobInfo();
        }

        @Override
        public TaskInfo getTaskInfo() {
            return context.getTaskInfo();
        }
    }

    private static final class Guarded<T> implements JdbcStatementBuilder<T> {
        private static final long serialVersionUID = 1L;
        private final JdbcStatementBuilder<T> row;

        Guarded(JdbcStatementBuilder<T> row) {
            this.row = row;
        }

        @Override
        public void accept(PreparedStatement st, T record) throws SQLException {
            if (st == null) {
                throw new SQLException(
                        "no prepared statement: the connection to the database was lost and is not back yet");
            }
            row.accept(st, record);
        }
    }

    interface Opener<T> {
        SinkWriter<T> open() throws IOException;
    }

    static final class Writer<T> implements SinkWriter<T> {
        private static final Logger LOG = LoggerFactory.getLogger(OutageTolerantJdbcSink.class);

        private final String table;
        private final NewestPerKey<T> batch;
        private final int batchSize;
        private final OutageBackoff backoff;
        private final long flushIntervalMs;
        private final ProcessingTimeService time;
        private SinkWriter<T> delegate;
        private Context context;
        private boolean pending;
        private boolean closed;

        Writer(
                String table,
                NewestPerKey<T> batch,
                int batchSize,
                OutageBackoff backoff,
                long flushIntervalMs,
                ProcessingTimeService time) {
            this.table = table;
            this.batch = batch;
            this.batchSize = batchSize;
            this.backoff = backoff;
            this.flushIntervalMs = flushIntervalMs;
            this.time = time;
        }

        /** Opens the connector's writer (it connects at once), retrying while the database is down. */
        void open(Opener<T> opener) throws IOException {
            try {
                delegate = opener.open();
            } catch (IOException | AssertionError first) {
                retry("connect", io(first), () -> delegate = opener.open());
            }
            if (flushIntervalMs > 0) {
                time.registerTimer(time.getCurrentProcessingTime() + flushIntervalMs, this::onTimer);
            }
        }

        @Override
        public void write(T element, Context context) throws IOException, InterruptedException {
            pending = true;
            this.context = context;
            try {
                batch.add(element);
            } catch (SQLException e) {
                throw new IOException(table + ": cannot read the key of a row", e);
            }
            if (batch.size() >= batchSize) {
                handOver();
            }
        }

        /** Hands the batch to the connector (which executes it when it holds its batch size). */
        private void handOver() throws IOException, InterruptedException {
            for (T row : batch.drain()) {
                try {
                    delegate.write(row, context);
                } catch (IOException | AssertionError first) {
                    // The record is in the connector's batch already; only the batch's flush failed.
                    retry("write a batch", io(first), () -> delegate.flush(false));
                }
            }
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            handOver();
            try {
                delegate.flush(endOfInput);
            } catch (IOException | AssertionError first) {
                retry("flush", io(first), () -> delegate.flush(endOfInput));
            }
            pending = false;
        }

        private void onTimer(long now) throws IOException, InterruptedException {
            if (closed) {
                return;
            }
            if (pending) {
                flush(false);
            }
            time.registerTimer(time.getCurrentProcessingTime() + flushIntervalMs, this::onTimer);
        }

        private interface Attempt {
            void run() throws IOException, InterruptedException;
        }

        private void retry(String what, IOException first, Attempt attempt) throws IOException {
            long started = System.nanoTime();
            IOException last = first;
            for (int retry = 0; ; retry++) {
                long elapsed = (System.nanoTime() - started) / 1_000_000;
                long delay = backoff.delayMs(retry);
                if (backoff.givesUp(elapsed, delay)) {
                    throw new IOException(
                            table + ": could not " + what + " for " + elapsed + " ms (" + retry
                                    + " retries); failing the task, the restart strategy restarts it from the last checkpoint",
                            last);
                }
                LOG.warn(
                        "{}: could not {} ({}); retry {} in {} ms ({} of {} ms spent)",
                        table,
                        what,
                        reason(last),
                        retry + 1,
                        delay,
                        elapsed,
                        backoff.giveUpAfterMs());
                try {
                    Thread.sleep(delay);
                    attempt.run();
                    LOG.info(
                            "{}: {} succeeded after {} ms and {} retries",
                            table,
                            what,
                            (System.nanoTime() - started) / 1_000_000,
                            retry + 1);
                    return;
                } catch (IOException | AssertionError e) {
                    last = io(e);
                } catch (InterruptedException e) {
                    // The task is being cancelled: stop waiting at once (a task that ignores its
                    // cancellation for task.cancellation.timeout, 180 s, is fatal for the TaskManager).
                    Thread.currentThread().interrupt();
                    throw new IOException(table + ": interrupted while waiting for the database", e);
                }
            }
        }

        /**
         * pgjdbc 42.7 asserts that {@code getAutoCommit()} does not throw while it finishes a batch
         * ({@code org.postgresql.jdbc.BatchResultHandler.isAutoCommit}); on a connection the server has just closed it does,
         * and in a JVM with assertions enabled (test JVMs) that is an AssertionError: a lost
         * connection all the same. An Error escaping {@code close()} is fatal for the TaskManager.
         */
        private static IOException io(Throwable t) {
            return t instanceof IOException e ? e : new IOException("the JDBC driver failed on a lost connection", t);
        }

        /** The innermost message: for an outage, pgjdbc's "Connection to ... refused". */
        private static String reason(Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root.getClass().getSimpleName() + ": " + root.getMessage();
        }

        @Override
        public void close() {
            closed = true;
            if (delegate == null) {
                return;
            }
            try {
                delegate.close();
            } catch (Exception | AssertionError e) {
                // Only on a failure path: at end of input flush(true) wrote everything before close.
                LOG.warn(
                        "{}: closing the JDBC writer failed ({}); rows not written since the last checkpoint are written"
                                + " again from it after the restart",
                        table,
                        reason(e));
            }
        }
    }
}
