package io.flowtrace.cli.output;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Human units for the text report, as tshark and Wireshark print them: durations in µs, ms or s
 * with three significant digits, sizes in decimal kB/MB/GB (SI, like tshark's conversation table),
 * rates in bit/s with SI prefixes, counts with thousands separators, and "-" for "none".
 */
public final class Units {
    static final String NONE = "-";
    private static final DateTimeFormatter TIME_OF_DAY = DateTimeFormatter.ofPattern(
                    "uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private Units() {}

    static String count(long n) {
        return n < 0 ? NONE : String.format(Locale.ROOT, "%,d", n);
    }

    /** A duration given in microseconds (fractional allowed); negative or NaN is "none". */
    static String micros(double us) {
        if (Double.isNaN(us) || us < 0) {
            return NONE;
        }
        if (us < 1000) {
            return significant(us) + " µs";
        }
        if (us < 1_000_000) {
            return significant(us / 1000) + " ms";
        }
        double s = us / 1e6;
        return s < 1000 ? significant(s) + " s" : String.format(Locale.ROOT, "%,.0f s", s);
    }

    static String nanos(long ns) {
        return ns < 0 ? NONE : micros(ns / 1000.0);
    }

    static String bytes(long b) {
        if (b < 0) {
            return NONE;
        }
        if (b < 1000) {
            return b + " B";
        }
        String[] prefix = {"kB", "MB", "GB", "TB"};
        double v = b;
        int i = -1;
        while (v >= 1000 && i < prefix.length - 1) {
            v /= 1000;
            i++;
        }
        return significant(v) + " " + prefix[i];
    }

    static String bitRate(double bitsPerSecond) {
        if (Double.isNaN(bitsPerSecond) || bitsPerSecond < 0) {
            return NONE;
        }
        String[] prefix = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
        double v = bitsPerSecond;
        int i = 0;
        while (v >= 1000 && i < prefix.length - 1) {
            v /= 1000;
            i++;
        }
        return significant(v) + " " + prefix[i];
    }

    /** An instant in epoch microseconds as a UTC date and time to the microsecond. */
    static String epochMicros(long us) {
        return TIME_OF_DAY.format(
                        Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000L))
                + " UTC";
    }

    /** Three significant digits, no trailing ".0": 3.05, 30.5, 305, 3,050. */
    static String significant(double v) {
        if (v >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
