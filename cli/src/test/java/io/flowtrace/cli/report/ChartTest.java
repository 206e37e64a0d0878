package io.flowtrace.cli.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChartTest {

    @Test
    void stackedBarsDrawEachSeriesOnTopOfTheOnesBeforeItTallestFirstAndShowTheirOwnCounts() {
        // bins a, b, c: rto 1, 0, 2 and fast 3, 1, 0 → stack tops: rto 1, 0, 2; rto + fast 4, 1, 2
        Chart c = Chart.stackedBars(
                "t",
                "x",
                "y",
                List.of("a", "b", "c"),
                List.of("rto", "fast"),
                List.of("#d62728", "#ff7f0e"),
                new double[][] {{1, 0, 2}, {3, 1, 0}});
        assertThat(c.categories()).containsExactly("a", "b", "c");
        assertThat(c.counts()).isTrue();
        assertThat(c.series()).extracting(Chart.Series::label).containsExactly("fast", "rto");
        Chart.Series fast = c.series().get(0);
        assertThat(fast.x()).containsExactly(0, 1, 2);
        assertThat(fast.y()).containsExactly(4, 1, 2);
        assertThat(fast.shown()).containsExactly(3, 1, 0);
        assertThat(c.series().get(1).y()).containsExactly(1, 0, 2);
        assertThat(c.series()).allMatch(s -> s.style() == Chart.Style.BARS);
    }

    @Test
    void namedPointsKeepTheirNamesThroughTheSort() {
        Chart.Series s = Chart.Series.named(
                "exits", "#000", Chart.Style.POINTS, new double[] {30, 10, 20}, new double[] {3, 1, 2}, new String[] {
                    "flow c", "flow a", "flow b"
                });
        assertThat(s.x()).containsExactly(10, 20, 30);
        assertThat(s.names()).containsExactly("flow a", "flow b", "flow c");
        assertThatThrownBy(() -> Chart.Series.named(
                        "bad", "#000", Chart.Style.POINTS, new double[] {1}, new double[] {1}, new String[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void seriesPointsAreSortedByXForUplotKeepingTheirPairs() {
        Chart.Series s = new Chart.Series(
                "exits", "#000", Chart.Style.POINTS, new double[] {30, 10, 20}, new double[] {3, 1, 2}, new double[] {
                    -3, -1, -2
                });
        assertThat(s.x()).containsExactly(10, 20, 30);
        assertThat(s.y()).containsExactly(1, 2, 3);
        assertThat(s.shown()).containsExactly(-1, -2, -3);
    }

    @Test
    void seriesOfUnequalLengthsAreRefused() {
        assertThatThrownBy(() -> new Chart.Series("s", "#000", Chart.Style.LINE, new double[] {1, 2}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("differ in length");
    }
}
