package io.flowtrace.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A log-log line chart as PNG, for the benchmark harness (bench/run.sh): one line per series from a
 * TSV of {@code series <tab> x <tab> y} rows. Plain AWT, headless: nothing to install.
 *
 * <p>{@code java -Djava.awt.headless=true -cp bench/target/flowtrace-bench.jar io.flowtrace.bench.LogLogPlot DATA.tsv OUT.png TITLE XLABEL YLABEL}
 */
public final class LogLogPlot {
    private static final int W = 1020;
    private static final int H = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 380;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;
    private static final Color[] COLORS = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd),
        new Color(0x8c564b)
    };

    private LogLogPlot() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            System.err.println("usage: LogLogPlot DATA.tsv OUT.png TITLE XLABEL YLABEL");
            System.exit(2);
        }
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] f = line.split("\t");
            if (f.length != 3 || line.startsWith("#")) {
                continue;
            }
            double x = Double.parseDouble(f[1]);
            double y = Double.parseDouble(f[2]);
            if (x > 0 && y > 0) {
                series.computeIfAbsent(f[0], k -> new ArrayList<>()).add(new double[] {x, y});
            }
        }
        if (series.isEmpty()) {
            throw new IOException(args[0] + ": no positive data points");
        }
        ImageIO.write(
                render(series, args[2], args[3], args[4]),
                "png",
                Path.of(args[1]).toFile());
    }

    static BufferedImage render(Map<String, List<double[]>> series, String title, String xLabel, String yLabel) {
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (List<double[]> points : series.values()) {
            for (double[] p : points) {
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
                minY = Math.min(minY, p[1]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        int x0 = (int) Math.floor(Math.log10(minX));
        int x1 = Math.max(x0 + 1, (int) Math.ceil(Math.log10(maxX) - 0.05)); // 1,003,035 packets is "10^6"
        int y0 = (int) Math.floor(Math.log10(minY));
        int y1 = Math.max(y0 + 1, (int) Math.ceil(Math.log10(maxY) - 0.05));

        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.setColor(Color.BLACK);
        g.drawString(title, LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        drawAxes(g, new int[] {x0, x1, y0, y1}, xLabel, yLabel);

        int i = 0;
        for (Map.Entry<String, List<double[]>> s : series.entrySet()) {
            Color c = COLORS[i % COLORS.length];
            g.setColor(c);
            g.setStroke(new BasicStroke(2.2f));
            int[] prev = null;
            for (double[] p : s.getValue()) {
                int px = LEFT + (int) Math.round((Math.log10(p[0]) - x0) / (x1 - x0) * plotW);
                int py = TOP + plotH - (int) Math.round((Math.log10(p[1]) - y0) / (y1 - y0) * plotH);
                g.fillOval(px - 4, py - 4, 8, 8);
                if (prev != null) {
                    g.drawLine(prev[0], prev[1], px, py);
                }
                prev = new int[] {px, py};
            }
            int ly = TOP + 20 + i * 22;
            g.drawLine(LEFT + plotW + 15, ly - 4, LEFT + plotW + 40, ly - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.getKey(), LEFT + plotW + 46, ly);
            i++;
        }
        g.setColor(Color.GRAY);
        g.drawString(String.format(Locale.ROOT, "%d series, log-log", series.size()), LEFT + plotW + 15, TOP + plotH);
        g.dispose();
        return img;
    }

    /** Grid lines and decade labels of both axes ({@code decades}: x0, x1, y0, y1), the frame and the axis titles. */
    private static void drawAxes(Graphics2D g, int[] decades, String xLabel, String yLabel) {
        int x0 = decades[0];
        int x1 = decades[1];
        int y0 = decades[2];
        int y1 = decades[3];
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        for (int e = x0; e <= x1; e++) {
            int px = LEFT + (int) Math.round((double) (e - x0) / (x1 - x0) * plotW);
            g.setColor(new Color(0xdddddd));
            g.drawLine(px, TOP, px, TOP + plotH);
            g.setColor(Color.BLACK);
            g.drawString("10^" + e, px - 14, TOP + plotH + 18);
        }
        for (int e = y0; e <= y1; e++) {
            int py = TOP + plotH - (int) Math.round((double) (e - y0) / (y1 - y0) * plotH);
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, py, LEFT + plotW, py);
            g.setColor(Color.BLACK);
            g.drawString("10^" + e, LEFT - 45, py + 4);
        }
        g.drawRect(LEFT, TOP, plotW, plotH);
        g.drawString(xLabel, LEFT + plotW / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, H - 25);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(yLabel, -(TOP + plotH / 2 + g.getFontMetrics().stringWidth(yLabel) / 2), 22);
        rotated.dispose();
    }
}
