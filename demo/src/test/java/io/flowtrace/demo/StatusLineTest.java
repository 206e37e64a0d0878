package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The demo's progress line as the progressbar library draws it: redrawn in place on a terminal
 * (carriage returns, a bar with percentage when the total is known, elapsed time when it is not),
 * cleared before each step's final line; one final line per step elsewhere; nothing with -q.
 */
class StatusLineTest {
    private static final long DRAW_TIMEOUT_MILLIS = 10_000;
    private static final int COLUMNS = 120;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private synchronized String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The library redraws from its own thread (every 250 ms): wait for a redraw showing {@code text}. */
    private void awaitDrawn(String text) throws InterruptedException {
        long deadline = System.currentTimeMillis() + DRAW_TIMEOUT_MILLIS;
        while (!written().contains(text) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertThat(written()).as("drawn within %d ms", DRAW_TIMEOUT_MILLIS).contains(text);
    }

    @Test
    void offATerminalOnlyEachStepsFinalStateIsPrinted() {
        StatusLine status = new StatusLine(err, false, false, COLUMNS);
        StatusLine.Step job = status.step("flink job");
        job.update("in: 10 records (0 committed at the last checkpoint)  out: 3 rows");
        job.done("flink job  finished in 2.0 s  out: 12 rows");
        StatusLine.Step replay = status.step("agent packets  x.pcap", 1000);
        replay.update(500, "5 frames read, 3 published");
        replay.done("agent packets  x.pcap  10 frames read, 10 TCP packets published (0.1 s)");
        assertThat(written())
                .isEqualTo("flink job  finished in 2.0 s  out: 12 rows" + System.lineSeparator()
                        + "agent packets  x.pcap  10 frames read, 10 TCP packets published (0.1 s)"
                        + System.lineSeparator());
    }

    @Test
    void onATerminalABarWithItsPercentageIsRedrawnInPlaceAndClearedBeforeTheFinalLine() throws Exception {
        StatusLine status = new StatusLine(err, true, false, COLUMNS);
        StatusLine.Step replay = status.step("agent packets  x.pcap", 4096);
        replay.update(1024, "7 frames read, 3 published");
        // 1,024 of 4,096 bytes: a quarter
        awaitDrawn("25%");
        replay.done("agent packets  x.pcap  28 frames read, 28 TCP packets published (0.4 s)");

        String tty = written();
        assertThat(tty).startsWith("\r").doesNotContain("\033[");
        List<String> segments = Arrays.asList(tty.split("\r", -1));
        assertThat(segments)
                .anySatisfy(s -> assertThat(s)
                        .startsWith("agent packets  x.pcap  25% [")
                        .contains("1/4 KiB")
                        .endsWith("7 frames read, 3 published"));
        // Every redraw fits the terminal (one column spare, so it never wraps).
        assertThat(segments).allSatisfy(s -> assertThat(s.strip().length()).isLessThan(COLUMNS));
        // Cleared (blanks back to the line's start), then the final line where the bar was: no blank line.
        String last = segments.get(segments.size() - 1);
        String cleared = segments.get(segments.size() - 2);
        assertThat(cleared).isNotEmpty().isBlank();
        assertThat(last)
                .isEqualTo("agent packets  x.pcap  28 frames read, 28 TCP packets published (0.4 s)"
                        + System.lineSeparator());
    }

    @Test
    void onATerminalAStepOfUnknownLengthShowsItsElapsedTimeAndFiguresWithoutAPercentage() throws Exception {
        StatusLine status = new StatusLine(err, true, false, COLUMNS);
        StatusLine.Step job = status.step("flink job");
        job.update("in: 15,123 packets + 449 conntrack events (536 Kafka records, 0 committed)  out: 113 flow rows");
        awaitDrawn("out: 113 flow rows");
        job.done("flink job  finished in 3.1 s  out: 240 flow rows");

        List<String> segments = Arrays.asList(written().split("\r", -1));
        assertThat(segments)
                .anySatisfy(s -> assertThat(s)
                        .matches(
                                "flink job  0:00:\\d\\d  in: 15,123 packets \\+ 449 conntrack events \\(536 Kafka records,"
                                        + " 0 committed\\)"
                                        + "  out: 113 flow rows"));
        assertThat(written()).doesNotContain("?").doesNotContain("%");
        assertThat(segments.get(segments.size() - 1))
                .isEqualTo("flink job  finished in 3.1 s  out: 240 flow rows" + System.lineSeparator());
    }

    @Test
    void quietPrintsNothing() throws Exception {
        StatusLine status = new StatusLine(err, true, true, COLUMNS);
        StatusLine.Step step = status.step("agent packets  x.pcap", 100);
        step.update(50, "1 frames read");
        Thread.sleep(600); // longer than two redraw periods: a bar would have been drawn by now
        step.done("done");
        assertThat(written()).isEmpty();
    }
}
