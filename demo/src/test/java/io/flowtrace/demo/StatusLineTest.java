package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The demo's progress line: redrawn in place on a terminal, one final line per step elsewhere, nothing with -q. */
class StatusLineTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void offATerminalOnlyEachStepsFinalStateIsPrinted() {
        StatusLine status = new StatusLine(err, false, false);
        status.update("flink job  1 s  in: 0 of 10 records committed at the last checkpoint  out: 3 rows");
        status.done("flink job  finished in 2.0 s  out: 12 rows");
        assertThat(written()).isEqualTo("flink job  finished in 2.0 s  out: 12 rows" + System.lineSeparator());
    }

    @Test
    void onATerminalTheLineIsRedrawnInPlaceAndClearedBeforeTheFinalLine() {
        StatusLine status = new StatusLine(err, true, false);
        status.update("step 1");
        status.done("done");
        assertThat(written()).isEqualTo("\r\033[Kstep 1" + "\r\033[K" + "done" + System.lineSeparator());
    }

    @Test
    void quietPrintsNothing() {
        StatusLine status = new StatusLine(err, true, true);
        status.update("step");
        status.done("done");
        assertThat(written()).isEmpty();
    }

    @Test
    void theBarIsClampedAndShowsItsPercentage() {
        // 28 cells: 14 filled at one half
        assertThat(StatusLine.bar(0.5)).isEqualTo("[" + "#".repeat(14) + ".".repeat(14) + "]  50 %");
        assertThat(StatusLine.bar(-1)).isEqualTo("[" + ".".repeat(28) + "]   0 %");
        assertThat(StatusLine.bar(7)).isEqualTo("[" + "#".repeat(28) + "] 100 %");
    }
}
