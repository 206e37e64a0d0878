package io.flowtrace.cli.report;

import java.util.Arrays;

/** A growable column of longs: a flow's per-packet values without a boxed object per packet. */
public final class LongColumn {
    private long[] values = new long[1024];
    private int size;

    void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[size++] = v;
    }

    long get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return values[i];
    }

    int size() {
        return size;
    }
}
