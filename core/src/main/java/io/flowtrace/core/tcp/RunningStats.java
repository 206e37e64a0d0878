package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** Count, min, max, mean and standard deviation of a stream of samples (Welford's method), no allocation. */
public final class RunningStats {
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private double mean;
    private double m2;

    public void add(long sample) {
        count++;
        if (sample < min) {
            min = sample;
        }
        if (sample > max) {
            max = sample;
        }
        double delta = sample - mean;
        mean += delta / count;
        m2 += delta * (sample - mean);
    }

    public long count() {
        return count;
    }

    /** Minimum, or 0 without samples. */
    public long min() {
        return count == 0 ? 0 : min;
    }

    public long max() {
        return count == 0 ? 0 : max;
    }

    public double mean() {
        return mean;
    }

    /** Population standard deviation (as tcptrace reports RTT stdev). */
    public double stdev() {
        return count < 2 ? 0 : Math.sqrt(m2 / count);
    }

    public void restore(long count, long min, long max, double mean, double m2) {
        this.count = count;
        this.min = count == 0 ? Long.MAX_VALUE : min;
        this.max = count == 0 ? Long.MIN_VALUE : max;
        this.mean = mean;
        this.m2 = m2;
    }

    public double m2() {
        return m2;
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, count);
        Varints.write(out, min);
        Varints.write(out, max);
        out.writeDouble(mean);
        out.writeDouble(m2);
    }

    void read(DataInput in) throws IOException {
        count = Varints.read(in);
        min = Varints.read(in);
        max = Varints.read(in);
        mean = in.readDouble();
        m2 = in.readDouble();
    }
}
