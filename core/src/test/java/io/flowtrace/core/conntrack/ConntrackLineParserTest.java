package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.ConntrackRecordings;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConntrackLineParserTest {
    private final CtnetlinkParser raw = new CtnetlinkParser();
    private final NetlinkSizer sizer = new NetlinkSizer();

    @Test
    void everyTextEventHasTheExactSizeOfItsRawMessageMatchedByIdAndType() throws Exception {
        int matched = 0;
        for (String name : ConntrackRecordings.TEXT_CASES) {
            RecordedCase c = RecordedCase.load(name);
            Map<String, ArrayDeque<Integer>> rawLengths = new HashMap<>();
            for (byte[] m : c.messages()) {
                ConntrackMessage e = raw.parse(m);
                rawLengths
                        .computeIfAbsent(e.id() + "/" + e.type(), k -> new ArrayDeque<>())
                        .add(m.length);
            }
            TextParseResult text;
            try (BufferedReader r = Files.newBufferedReader(c.text())) {
                text = new ConntrackLineParser(c.features(), ZoneOffset.UTC).parse(r);
            }
            assertThat(text.errors()).as(name).isEmpty();
            // conntrack -E used its own socket next to the raw listener: same events, same order per entry
            assertThat(text.events()).as(name).hasSize(c.messages().size());
            for (ConntrackMessage e : text.events()) {
                ArrayDeque<Integer> q = rawLengths.get(e.id() + "/" + e.type());
                assertThat(q)
                        .as(name + " id " + e.id() + " " + e.type())
                        .isNotNull()
                        .isNotEmpty();
                assertThat(sizer.exactSize(e))
                        .as(name + " id " + e.id() + " " + e.type())
                        .isEqualTo(q.poll());
                matched++;
            }
        }
        assertThat(matched).isGreaterThan(300);
    }

    @Test
    void readsTheFieldsOfATcpDestroyLineWithKernelTimestamps() throws Exception {
        String line = "[1796003167.480597]\t[DESTROY] ipv4     2 tcp      6 TIME_WAIT src=10.77.1.2 dst=10.77.2.2 "
                + "sport=58056 dport=7777 packets=5 bytes=287 src=10.77.2.2 dst=10.77.1.2 sport=7777 dport=58056 "
                + "packets=4 bytes=280 [ASSURED] mark=42 delta-time=1 [start=Mon Nov 30 01:46:06 2026] "
                + "[stop=Mon Nov 30 01:46:07 2026] id=2059949240";
        ConntrackMessage e = new ConntrackLineParser(KernelFeatures.stock(), ZoneOffset.UTC).parseLine(line, 1);
        assertThat(e.type()).isEqualTo(EventType.DESTROY);
        assertThat(e.id()).isEqualTo(2059949240L);
        assertThat(e.orig().srcPort()).isEqualTo(58056);
        assertThat(e.replyCounters()).isEqualTo(new DirectionCounters(4, 280));
        assertThat(e.tcp().state()).isEqualTo(7);
        assertThat(e.mark()).isEqualTo(42);
        assertThat(e.timeout()).isEqualTo(-1);
        assertThat(e.observedAtNanos()).isEqualTo(1796003167_480597000L);
        // 2026-11-30T01:46:07Z
        assertThat(e.timestampStop()).isEqualTo(1796003167_000000000L);
        // hand: header 20 + 2 v4 tuples 2*52 + ID 8 + STATUS 8 + counters 2*(4+12+12) + timestamp 28
        // + protoinfo(state) 16 + MARK 8 + event timestamp 12 = 260 (the raw v4 TCP DESTROY is 252 without mark)
        assertThat(sizer.exactSize(e)).isEqualTo(260);
    }

    @Test
    void reportsBadLinesWithTheirNumberAndKeepsReading() {
        String text = """
                [1796003166.280905]\t    [NEW] ipv4     2 udp      17 1 src=10.77.1.2 dst=10.77.2.2 sport=57098 dport=7777 [UNREPLIED] src=10.77.2.2 dst=10.77.1.2 sport=7777 dport=57098 id=1771214054
                garbage here
                [1796003166.281902]\t [UPDATE] ipv4     2 udp      17 1 src=10.77.1.2 dst=10.77.2.2 sport=x dport=7777 src=10.77.2.2 dst=10.77.1.2 sport=7777 dport=57098 id=1771214054
                [1796003166.281902]\t [UPDATE] ipv4     2 udp      17 1 src=10.77.1.2 dst=10.77.2.2 sport=57098 dport=7777 src=10.77.2.2 dst=10.77.1.2 sport=7777 dport=57098 id=1771214054
                """;
        TextParseResult r =
                new ConntrackLineParser(KernelFeatures.stock()).parse(new BufferedReader(new StringReader(text)));
        assertThat(r.events()).extracting(ConntrackMessage::type).containsExactly(EventType.NEW, EventType.UPDATE);
        assertThat(r.errors())
                .extracting(ConntrackTextParseException::lineNumber)
                .containsExactly(2L, 3L);
        assertThat(r.errors().get(1).getMessage()).contains("sport=x");
    }
}
