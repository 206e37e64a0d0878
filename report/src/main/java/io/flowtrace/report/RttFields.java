package io.flowtrace.report;

import static io.flowtrace.report.DirectionFields.count;
import static io.flowtrace.report.DirectionFields.side;
import static io.flowtrace.report.FlowField.Columns.PER_DIRECTION;
import static io.flowtrace.report.FlowField.SqlType.DOUBLE_PRECISION;

import io.flowtrace.core.tcp.RunningStats;
import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.report.FlowField.DecimalValue;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The {@code rtt_us.*} and {@code ts_rtt_us.*} fields of each direction, in report order: part of {@link DirectionFields}. */
final class RttFields {
    private RttFields() {}

    static final FlowField RTT_AVG_US = rtt("rtt_us", "avg", "RTT average", RunningStats::mean, "mean")
            .withColumn("rtt_avg_us", DOUBLE_PRECISION, PER_DIRECTION)
            .sampled("rttUs");

    static List<FlowField> of(String object, boolean withStdev) {
        List<FlowField> f = new ArrayList<>();
        boolean data = object.equals("rtt_us");
        String of = data ? "data-to-ACK samples (Karn's rule)" : "TSval-to-TSecr samples (first echo only)";
        // the labels: "RTT min" for data-to-ACK samples, "timestamp RTT min" for TSval-to-TSecr ones
        String rtt = data ? "RTT " : "timestamp RTT ";
        f.add(side(
                object + ".samples",
                data ? "RTT samples (data to ACK)" : "RTT samples (TCP timestamps)",
                "samples",
                "number of " + of,
                count(d -> stats(d, object).count())));
        f.add(rtt(object, "min", rtt + "min", RunningStats::min, "smallest"));
        f.add(data ? RTT_AVG_US : rtt(object, "avg", rtt + "average", RunningStats::mean, "mean"));
        f.add(rtt(object, "max", rtt + "max", RunningStats::max, "largest"));
        if (withStdev) {
            f.add(rtt(
                    object,
                    "stdev",
                    rtt + "standard deviation",
                    RunningStats::stdev,
                    "population standard deviation of the"));
        }
        return f;
    }

    private static FlowField rtt(
            String object, String name, String label, ToDoubleFunction<RunningStats> statistic, String what) {
        return side(object + "." + name, label, "µs", what + " RTT sample", new DecimalValue(s -> {
                    RunningStats r = stats(s.direction(), object);
                    return r.count() == 0 ? Double.NaN : statistic.applyAsDouble(r) / 1000.0;
                }))
                .orNull();
    }

    private static RunningStats stats(TcpDirectionStats d, String object) {
        return object.equals("rtt_us") ? d.rtt : d.tsRtt;
    }
}
