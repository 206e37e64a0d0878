package io.flowtrace.agent.conntrack;

import io.flowtrace.core.conntrack.ConntrackLineParser;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.ConntrackTextParseException;
import io.flowtrace.core.conntrack.KernelFeatures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Fallback source for hosts where the agent may not open netlink itself: reads the lines of
 * {@code conntrack -E -o timestamp,extended,id,ktimestamp} from a child process or from any stream
 * (stdin, a file). Sizes come from the attribute list core infers; it cannot see ENOBUFS (conntrack(8)
 * only prints a warning to stderr), see docs/conntrack.md.
 */
public final class ConntrackEventsProcess {
    public static final List<String> COMMAND = List.of("conntrack", "-E", "-o", "timestamp,extended,id,ktimestamp");

    private final ConntrackLineParser parser;

    public ConntrackEventsProcess(KernelFeatures features) {
        this.parser = new ConntrackLineParser(features);
    }

    /** Reads every line of {@code in}, delivering events and per-line errors; returns lines read. */
    public long read(Reader in, ConntrackEventSink sink) throws IOException {
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        long n = 0;
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            n++;
            try {
                ConntrackMessage e = parser.parseLine(line, n);
                if (e != null) {
                    sink.event(e);
                }
            } catch (ConntrackTextParseException e) {
                sink.malformed(e);
            }
        }
        return n;
    }

    /** Starts {@link #COMMAND} (stderr inherited) and reads it until it exits. */
    public int runCommand(ConntrackEventSink sink) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(COMMAND)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (Reader out = new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)) {
            read(out, sink);
        } finally {
            p.destroy();
        }
        return p.waitFor();
    }
}
