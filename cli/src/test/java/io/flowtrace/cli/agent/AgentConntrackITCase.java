package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flowtrace agent conntrack --source conntrack-tool} over a recorded {@code conntrack -E}
 * output: one Avro ConntrackEvent per line, keyed by the original tuple, in order.
 */
class AgentConntrackITCase {
    @RegisterExtension
    static final KafkaBroker KAFKA = new KafkaBroker();

    @TempDir
    Path spool;

    @Test
    void publishesOneConntrackEventPerRecordedLineKeyedByTheOriginalTuple() throws Exception {
        KAFKA.createTopic("ct", 2);
        Path text = TestData.file("conntrack/v4_plain.events.txt");
        List<String> lines = Files.readAllLines(text);
        AgentPacketsReplayITCase.Run run = AgentPacketsReplayITCase.agent(
                "agent",
                "conntrack",
                "--source",
                "conntrack-tool",
                "--input",
                text.toString(),
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--topic",
                "ct",
                "--agent-id",
                "ct-host",
                "--spool-dir",
                spool.toString());
        assertThat(run.exit()).as(run.stderr()).isZero();

        List<ConsumerRecord<byte[], byte[]>> records = KAFKA.readUncommitted("ct");
        assertThat(records).hasSize(lines.size());
        // The first line: [NEW] ipv4 2 tcp 6 120 SYN_SENT src=10.77.1.2 dst=10.77.2.2 sport=56198 dport=7777 ...
        // id=2240320557
        ConsumerRecord<byte[], byte[]> firstOfFlow = records.stream()
                .filter(r -> new String(r.key(), StandardCharsets.UTF_8)
                        .equals("ct-host/conntrack 2/6 10.77.1.2:56198 10.77.2.2:7777"))
                .findFirst()
                .orElseThrow();
        ConntrackEvent first = ConntrackEvent.getDecoder().decode(firstOfFlow.value());
        assertThat(first.getEventType()).isEqualTo(ConntrackEventType.NEW);
        assertThat(first.getId()).isEqualTo(2240320557L);
        assertThat(first.getTimeNs()).isEqualTo(1796003220_496772000L);
        assertThat(first.getSource()).isEqualTo(ConntrackSource.CONNTRACK_TOOL);
        assertThat(first.getWireSize())
                .as("the text source never sees the wire size")
                .isNull();
        assertThat(first.getAttributeTypes()).as("attributes the line showed").isNotEmpty();
        assertThat(first.getProtoinfoTcp().getState()).isEqualTo(1); // SYN_SENT, enum tcp_conntrack
        assertThat(first.getVantage().getAgentId()).isEqualTo("ct-host");
        long destroys = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (ConntrackEvent.getDecoder().decode(r.value()).getEventType() == ConntrackEventType.DESTROY) {
                destroys++;
            }
        }
        assertThat(destroys)
                .isEqualTo(lines.stream().filter(l -> l.contains("[DESTROY]")).count());
    }
}
