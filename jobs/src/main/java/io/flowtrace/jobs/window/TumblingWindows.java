package io.flowtrace.jobs.window;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/** The job's windowed aggregates come in several lengths (10 s and 1 min, 1 s and 1 min): one operator per length. */
public final class TumblingWindows {
    private TumblingWindows() {}

    /**
     * One window operator per size, each named and with the uid {@code NAME-<seconds>s}, or {@code
     * NAME-<millis>ms} for a size that is not whole seconds (fixed: savepoints map state by it), their
     * outputs in one stream.
     *
     * @param window the windowed stream of one size, without name and uid
     */
    public static <O> DataStream<O> union(
            List<Duration> sizes, String name, Function<Duration, SingleOutputStreamOperator<O>> window) {
        DataStream<O> all = null;
        for (Duration size : sizes) {
            String uid = uid(name, size);
            DataStream<O> one = window.apply(size).name(uid).uid(uid);
            all = all == null ? one : all.union(one);
        }
        return all;
    }

    /** {@code NAME-<seconds>s}, or {@code NAME-<millis>ms} for a size that is not whole seconds. */
    public static String uid(String name, Duration size) {
        return size.toMillis() % 1000 == 0 ? name + "-" + size.toSeconds() + "s" : name + "-" + size.toMillis() + "ms";
    }
}
