package io.flowtrace.agent.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.KernelFeatures;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConntrackEventsProcessTest {

    @Test
    void deliversEveryRecordedTextEventAndReportsBadLinesWithoutStopping() throws Exception {
        Path text = Path.of("..", "testdata", "conntrack", "v4_plain.events.txt");
        List<ConntrackMessage> events = new ArrayList<>();
        List<Exception> errors = new ArrayList<>();
        ConntrackEventSink sink = new ConntrackEventSink() {
            @Override
            public void event(ConntrackMessage e) {
                events.add(e);
            }

            @Override
            public void malformed(Exception e) {
                errors.add(e);
            }
        };
        String content = Files.readString(text) + "not a conntrack line\n";
        long lines;
        try (Reader r = new StringReader(content)) {
            lines = new ConntrackEventsProcess(KernelFeatures.stock()).read(r, sink);
        }
        long recorded = Files.readAllLines(text).size();
        assertThat(lines).isEqualTo(recorded + 1);
        assertThat(events).hasSize((int) recorded);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).getMessage()).startsWith("line " + (recorded + 1));
    }
}
