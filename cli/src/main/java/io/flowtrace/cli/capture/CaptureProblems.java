package io.flowtrace.cli.capture;

import io.flowtrace.core.analysis.CaptureSummary;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import java.util.Locale;

/**
 * What went wrong reading one capture, said on stderr as tshark says it: the first few format
 * errors as they come (the rest counted, so a corrupt file cannot flood stderr), and once the read
 * is over one line for what stopped or shortened it (a short last record, a cut gzip stream, an
 * unrecoverable error).
 */
public final class CaptureProblems implements CaptureErrorListener {
    private static final int MAX_ERRORS_SHOWN = 10;
    private static final String NAME = "flowtrace analyze";

    private final String file;
    private long count;
    /** The short last record (the file ends inside it), kept for the one "cut short" line. */
    private volatile String truncatedTail;

    public CaptureProblems(String file) {
        this.file = file;
    }

    /** Called on the reader thread. */
    @Override
    public void onError(CaptureFormatException error) {
        if (error.getMessage().contains(" at end of stream")) {
            truncatedTail = error.getMessage().replace(" at end of stream", "");
            return;
        }
        count++;
        if (count <= MAX_ERRORS_SHOWN) {
            System.err.println(NAME + ": \"" + file + "\": " + error.getMessage());
        } else if (count == MAX_ERRORS_SHOWN + 1) {
            System.err.println(NAME + ": \"" + file + "\": further format errors are counted, not shown");
        }
    }

    /** Prints what stopped or shortened the read; true when nothing did. */
    public boolean report(CaptureInput input, CaptureSummary summary) {
        long whole = summary.records;
        if (summary.format.isEmpty() && input.cutShort() != null) {
            System.err.printf(
                    Locale.ROOT,
                    "%s: \"%s\" appears to have been cut short (%s) before a capture header could be read%n",
                    NAME,
                    file,
                    input.cutShort());
        } else if (truncatedTail != null) {
            // tshark's words for the same case: "appears to have been cut short in the middle of a packet".
            System.err.printf(
                    Locale.ROOT,
                    "%s: \"%s\" appears to have been cut short in the middle of a packet (%s%s); the %,d whole"
                            + " records before it were analysed%n",
                    NAME,
                    file,
                    truncatedTail,
                    input.cutShort() != null ? "; " + input.cutShort() : "",
                    whole);
        } else if (input.cutShort() != null) {
            System.err.printf(
                    Locale.ROOT,
                    "%s: \"%s\" appears to have been cut short (%s); the %,d records before it were analysed%n",
                    NAME,
                    file,
                    input.cutShort(),
                    whole);
        }
        if (summary.fatalError != null && !(summary.format.isEmpty() && input.cutShort() != null)) {
            if (summary.format.isEmpty()) {
                System.err.printf(Locale.ROOT, "%s: \"%s\": %s%n", NAME, file, summary.fatalError);
            } else {
                System.err.printf(
                        Locale.ROOT,
                        "%s: \"%s\": reading stopped: %s; the %,d records before it were analysed%n",
                        NAME,
                        file,
                        summary.fatalError,
                        whole);
            }
        }
        return truncatedTail == null
                && input.cutShort() == null
                && summary.fatalError == null
                && summary.formatErrors == 0;
    }
}
