package io.flowtrace.cli.analyze;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Standard output of a run over several inputs in a text mode: each capture's output under a
 * {@code # FILE} header, a blank line between captures, as tcptrace prints one block per file. The
 * header is written only when something is written under it, or when the capture was recognised
 * ({@link #recognised()}): an input that could not be opened, or is not a capture at all, gets one
 * line on stderr and nothing on stdout. A filter between the report's PrintStream and its buffer,
 * so every writer (table, long blocks, text events, OpenVPN) lands under the right header.
 */
public final class InputSections extends OutputStream {
    private final OutputStream out;
    private final boolean headed;
    private byte[] pendingHeader;
    private boolean written;

    /** With {@code headed} false (one input, JSON, --services) a plain pass-through. */
    InputSections(OutputStream out, boolean headed) {
        this.out = out;
        this.headed = headed;
    }

    /** The output that follows belongs to {@code file}; its header waits for the first byte. */
    void begin(String file) {
        if (headed) {
            String separator = written ? System.lineSeparator() : "";
            pendingHeader = (separator + "# " + file + System.lineSeparator()).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The current input was read as a capture: it gets its header even when nothing is printed under it. */
    void recognised() throws IOException {
        writeHeader();
    }

    private void writeHeader() throws IOException {
        if (pendingHeader != null) {
            byte[] header = pendingHeader;
            pendingHeader = null;
            out.write(header);
        }
        written = true;
    }

    @Override
    public void write(int b) throws IOException {
        writeHeader();
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return;
        }
        writeHeader();
        out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
