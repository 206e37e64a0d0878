package io.flowtrace.demo.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Inline SVG charts written as text: axes with round ticks, lines, points, bars, a legend. No
 * script and no external resource, so the report opens anywhere without network (and renders the
 * same in any browser). Every chart element that carries data has class {@code data}.
 */
public final class Svg {
    public enum Style { LINE, STEP, POINTS, SEGMENTS }

    /** One series; for SEGMENTS each point is drawn as a short vertical tick (a data segment). */
    public record Series(String name, String color, double[] x, double[] y, Style style) {
    }

    static final String[] PALETTE = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

    private static final int W = 560;
    private static final int H = 300;
    private static final int LEFT = 70;
    private static final int RIGHT = 15;
    private static final int TOP = 30;
    private static final int BOTTOM = 45;

    private Svg() {
    }

    /** An x/y chart of the series (lines, steps, points or ticks); axes span all series. */
    public static String xy(String title, String xLabel, String yLabel, List<Series> series) {
        double[] xr = range(series, true);
        double[] yr = range(series, false);
        if (yr[0] > 0 && yr[0] < yr[1] * 0.5) {
            yr[0] = 0;
        }
        Axis xa = new Axis(xr[0], xr[1]);
        Axis ya = new Axis(yr[0], yr[1]);
        StringBuilder b = open(title);
        axes(b, xa, ya, xLabel, yLabel);
        for (Series s : series) {
            plot(b, s, xa, ya);
        }
        legend(b, series.stream().map(Series::name).toList(), series.stream().map(Series::color).toList());
        return b.append("</svg>\n").toString();
    }

    /** Stacked bars: one bar per category, one stack layer per series (values per category). */
    public static String stackedBars(String title, String xLabel, String yLabel, List<String> categories,
            List<String> layerNames, List<String> colors, double[][] values) {
        double max = 0;
        for (int c = 0; c < categories.size(); c++) {
            double sum = 0;
            for (double[] layer : values) {
                sum += layer[c];
            }
            max = Math.max(max, sum);
        }
        Axis ya = new Axis(0, max <= 0 ? 1 : max);
        StringBuilder b = open(title);
        int plotW = W - LEFT - RIGHT;
        int n = Math.max(1, categories.size());
        double slot = (double) plotW / n;
        axes(b, null, ya, xLabel, yLabel);
        int labelEvery = Math.max(1, (int) Math.ceil(n / 10.0));
        for (int c = 0; c < categories.size(); c++) {
            double x = LEFT + c * slot + slot * 0.1;
            double base = 0;
            for (int l = 0; l < values.length; l++) {
                double v = values[l][c];
                if (v > 0) {
                    double y0 = ya.px(base + v);
                    double y1 = ya.px(base);
                    b.append(String.format(Locale.ROOT, "<rect class=\"data\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %s</title></rect>%n",
                            x, y0, slot * 0.8, Math.max(0.5, y1 - y0), colors.get(l), esc(categories.get(c)),
                            esc(layerNames.get(l)), Axis.fmt(v)));
                    base += v;
                }
            }
            if (c % labelEvery == 0) {
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>%n",
                        x + slot * 0.4, H - BOTTOM + 14, esc(categories.get(c))));
            }
        }
        legend(b, layerNames, colors);
        return b.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder b = new StringBuilder(16_384);
        b.append(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">%n",
                W, H, W, H));
        b.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", W, H));
        b.append(String.format("<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s</text>%n", LEFT, esc(title)));
        return b;
    }

    private static void axes(StringBuilder b, Axis xa, Axis ya, String xLabel, String yLabel) {
        int x0 = LEFT;
        int x1 = W - RIGHT;
        int y0 = H - BOTTOM;
        int y1 = TOP;
        b.append(String.format("<g stroke=\"#999\" stroke-width=\"1\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>%n",
                x0, y0, x1, y0, x0, y0, x0, y1));
        for (double t : ya.ticks()) {
            double y = ya.px(t);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>%n",
                    x0, y, x1, y, x0 - 4, y + 3, Axis.fmt(t)));
        }
        if (xa != null) {
            for (double t : xa.ticksX()) {
                double x = xa.pxX(t);
                b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/><text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>%n",
                        x, y0, x, y0 + 4, x, y0 + 15, Axis.fmt(t)));
            }
        }
        b.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>%n",
                (x0 + x1) / 2, H - 8, esc(xLabel)));
        b.append(String.format("<text x=\"12\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 %d)\">%s</text>%n",
                (y0 + y1) / 2, (y0 + y1) / 2, esc(yLabel)));
    }

    private static void plot(StringBuilder b, Series s, Axis xa, Axis ya) {
        int n = Math.min(s.x().length, s.y().length);
        if (n == 0) {
            return;
        }
        switch (s.style()) {
            case LINE, STEP -> {
                StringBuilder pts = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    if (s.style() == Style.STEP && i > 0) {
                        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", xa.pxX(s.x()[i]), ya.px(s.y()[i - 1])));
                    }
                    pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", xa.pxX(s.x()[i]), ya.px(s.y()[i])));
                }
                b.append(String.format("<polyline class=\"data\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"><title>%s</title></polyline>%n",
                        s.color(), pts.toString().trim(), esc(s.name())));
            }
            case POINTS -> {
                b.append(String.format("<g class=\"data\" fill=\"%s\"><title>%s</title>", s.color(), esc(s.name())));
                for (int i = 0; i < n; i++) {
                    b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>", xa.pxX(s.x()[i]), ya.px(s.y()[i])));
                }
                b.append("</g>\n");
            }
            case SEGMENTS -> {
                StringBuilder d = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    d.append(String.format(Locale.ROOT, "M%.1f %.1fv-3", xa.pxX(s.x()[i]), ya.px(s.y()[i]) + 1.5));
                }
                b.append(String.format("<path class=\"data\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\" d=\"%s\"><title>%s</title></path>%n",
                        s.color(), d, esc(s.name())));
            }
        }
    }

    private static void legend(StringBuilder b, List<String> names, List<String> colors) {
        int x = LEFT + 10;
        int y = TOP + 12;
        for (int i = 0; i < names.size(); i++) {
            b.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"10\">%s</text>%n",
                    x, y - 9, colors.get(i), x + 14, y, esc(names.get(i))));
            y += 13;
        }
    }

    private static double[] range(List<Series> series, boolean x) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            for (double v : x ? s.x() : s.y()) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (lo == Double.POSITIVE_INFINITY) {
            return new double[] {0, 1};
        }
        if (hi <= lo) {
            hi = lo + (lo == 0 ? 1 : Math.abs(lo));
        }
        return new double[] {lo, hi};
    }

    public static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A linear axis with "nice" ticks (1, 2, 5 × 10^k). */
    private static final class Axis {
        final double lo;
        final double hi;
        final double step;

        Axis(double lo, double hi) {
            double raw = (hi - lo) / 5;
            double mag = Math.pow(10, Math.floor(Math.log10(raw)));
            double norm = raw / mag;
            this.step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
            this.lo = Math.floor(lo / step) * step;
            this.hi = Math.ceil(hi / step) * step;
        }

        List<Double> ticks() {
            List<Double> t = new ArrayList<>();
            for (double v = lo; v <= hi + step / 2; v += step) {
                t.add(v);
            }
            return t;
        }

        List<Double> ticksX() {
            return ticks();
        }

        double px(double v) {
            return (H - BOTTOM) - (v - lo) / (hi - lo) * (H - BOTTOM - TOP);
        }

        double pxX(double v) {
            return LEFT + (v - lo) / (hi - lo) * (W - LEFT - RIGHT);
        }

        static String fmt(double v) {
            double a = Math.abs(v);
            if (a >= 1e9) {
                return trim(v / 1e9) + "G";
            }
            if (a >= 1e6) {
                return trim(v / 1e6) + "M";
            }
            if (a >= 1e4) {
                return trim(v / 1e3) + "k";
            }
            return trim(v);
        }

        private static String trim(double v) {
            String s = String.format(Locale.ROOT, "%.2f", v);
            s = s.replaceAll("0+$", "");
            return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        }
    }
}
