package io.flowtrace.cli.report;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A chart of the report that is not a flow's graphs: series of (x, y) points, each with its own x
 * values (uPlot.join aligns them in the page), drawn as lines, points or bars. With
 * {@code categories} the x values are indexes 0..n-1 into those labels (histogram bins); with
 * {@code counts} the y axis ticks are whole numbers.
 */
public record Chart(
        String title, String xLabel, String yLabel, List<Series> series, List<String> categories, boolean counts) {
    public enum Style {
        LINE,
        POINTS,
        BARS
    }

    /**
     * One series; points are sorted by x (uPlot wants ascending x). {@code shown}, when not null,
     * holds the values the legend shows instead of y (a stacked bar's own count, not its stack's top).
     * {@code names}, when not null, names each point (a scatter's flows): the legend shows the name of
     * the point under the cursor next to its value.
     */
    public record Series(
            String label, String colour, Style style, double[] x, double[] y, double[] shown, String[] names) {
        public Series {
            if (x.length != y.length
                    || (shown != null && shown.length != x.length)
                    || (names != null && names.length != x.length)) {
                throw new IllegalArgumentException("series " + label + ": x, y (and shown, names) differ in length");
            }
            Integer[] order = new Integer[x.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            double[] xs = x;
            Arrays.sort(order, Comparator.comparingDouble(i -> xs[i]));
            double[] sx = new double[x.length];
            double[] sy = new double[x.length];
            double[] ss = shown == null ? null : new double[x.length];
            String[] sn = names == null ? null : new String[x.length];
            for (int i = 0; i < order.length; i++) {
                sx[i] = x[order[i]];
                sy[i] = y[order[i]];
                if (ss != null) {
                    ss[i] = shown[order[i]];
                }
                if (sn != null) {
                    sn[i] = names[order[i]];
                }
            }
            x = sx;
            y = sy;
            shown = ss;
            names = sn;
        }

        public Series(String label, String colour, Style style, double[] x, double[] y) {
            this(label, colour, style, x, y, null, null);
        }

        public Series(String label, String colour, Style style, double[] x, double[] y, double[] shown) {
            this(label, colour, style, x, y, shown, null);
        }

        /** Points with a name each (e.g. the flow a scatter dot is), shown in the legend on hover. */
        public static Series named(String label, String colour, Style style, double[] x, double[] y, String[] names) {
            return new Series(label, colour, style, x, y, null, names);
        }
    }

    /** A chart over numeric x. */
    public static Chart xy(String title, String xLabel, String yLabel, List<Series> series) {
        return new Chart(title, xLabel, yLabel, series, null, false);
    }

    /**
     * Bars of {@code counts[series][bin]} stacked per bin: each series is drawn as the sum of itself
     * and the series before it, from the top of the stack down, so each shows as its own band; the
     * legend shows each series' own count.
     */
    public static Chart stackedBars(
            String title,
            String xLabel,
            String yLabel,
            List<String> bins,
            List<String> names,
            List<String> colours,
            double[][] counts) {
        int n = bins.size();
        double[] x = new double[n];
        for (int b = 0; b < n; b++) {
            x[b] = b;
        }
        double[][] top = new double[counts.length][n];
        for (int b = 0; b < n; b++) {
            double sum = 0;
            for (int s = 0; s < counts.length; s++) {
                sum += counts[s][b];
                top[s][b] = sum;
            }
        }
        Series[] drawn = new Series[counts.length];
        for (int s = counts.length - 1; s >= 0; s--) {
            drawn[counts.length - 1 - s] = new Series(names.get(s), colours.get(s), Style.BARS, x, top[s], counts[s]);
        }
        return new Chart(title, xLabel, yLabel, List.of(drawn), bins, true);
    }
}
