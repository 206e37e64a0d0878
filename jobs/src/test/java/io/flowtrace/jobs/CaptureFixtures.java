package io.flowtrace.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportVisitor;
import io.flowtrace.testkit.KafkaClientSide;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Committed real captures as the job sees them (PacketEvents, as an agent would publish them) and
 * as {@code flowtrace analyze --json} sees them (the offline truth the job must reproduce).
 */
public final class CaptureFixtures {
    private CaptureFixtures() {}

    /** The capture's TCP packets as PacketEvents of {@code vantage}, in capture order. */
    public static List<PacketEvent> packets(String relativePath, Vantage vantage) {
        List<PacketEvent> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(TestData.file(relativePath));
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) == DecodeStatus.TCP) {
                    out.add(PacketEvents.toAvro(p, vantage));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + relativePath, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + relativePath, e);
        }
        return out;
    }

    /**
     * Publishes the capture's TCP packets to {@code topic} as an agent without batches does (one
     * PacketEvent per record, key = the canonical flow key), in capture order; returns the first
     * capture time (ns).
     */
    public static long publish(KafkaClientSide kafka, String topic, String relativePath, Vantage vantage) {
        long first = Long.MAX_VALUE;
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = kafka.newProducer()) {
            for (PacketEvent p : packets(relativePath, vantage)) {
                PacketEvents.fromAvro(p, scratch);
                String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                producer.send(new ProducerRecord<>(
                        topic,
                        key.getBytes(StandardCharsets.UTF_8),
                        p.toByteBuffer().array()));
                first = Math.min(first, p.getCaptureTimeNs());
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return first;
    }

    /**
     * What {@code flowtrace analyze --json} reports for the capture: core's offline pipeline
     * (CaptureAnalysis, FlowTracker) walked into a JSON tree by this test's own writer, with the
     * CLI's number rules (three decimals, NaN as null). Keyed by {@link #identity}.
     */
    public static Map<String, JsonNode> offlineReports(String relativePath, String vantageText) {
        Map<String, JsonNode> reports = new TreeMap<>();
        VantagePoint vantage = VantagePoint.parse(vantageText);
        try (InputStream in = Files.newInputStream(TestData.file(relativePath))) {
            new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> vantage)
                    .run(
                            in,
                            (key, instance, flow) -> {
                                TreeWriter tree = new TreeWriter();
                                FlowReport.visit(key, instance, flow, tree);
                                reports.put(identity(tree.root), tree.root);
                            },
                            TcpEventSinkFactory.NONE,
                            error -> {
                                throw new IllegalStateException("capture format error in " + relativePath, error);
                            },
                            records -> {});
        } catch (IOException e) {
            throw new UncheckedIOException("cannot analyse " + relativePath, e);
        }
        return reports;
    }

    /**
     * A report flattened to "path = value", numbers by value (jsonb re-renders 1.5E7 as 15000000),
     * so that two reports compare field for field with a readable difference.
     */
    public static Map<String, String> flatten(JsonNode report) {
        Map<String, String> out = new TreeMap<>();
        flatten("", report, out);
        return out;
    }

    private static void flatten(String path, JsonNode node, Map<String, String> out) {
        if (node.isObject()) {
            node.fields()
                    .forEachRemaining(
                            e -> flatten(path.isEmpty() ? e.getKey() : path + "." + e.getKey(), e.getValue(), out));
        } else if (node.isArray()) {
            out.put(path + "[]", Integer.toString(node.size()));
            for (int i = 0; i < node.size(); i++) {
                flatten(path + "[" + i + "]", node.get(i), out);
            }
        } else if (node.isNumber()) {
            out.put(path, node.decimalValue().stripTrailingZeros().toPlainString());
        } else {
            out.put(path, node.isNull() ? "null" : node.asText());
        }
    }

    /** Identity of a report: "vantage client server instance". */
    public static String identity(JsonNode report) {
        JsonNode flow = report.get("flow");
        return flow.get("vantage").asText() + " " + flow.get("client").asText() + " "
                + flow.get("server").asText() + " " + flow.get("instance").asLong();
    }

    private static final class TreeWriter implements ReportVisitor {
        final ObjectNode root = JsonNodeFactory.instance.objectNode();
        private final Deque<ObjectNode> open = new ArrayDeque<>(List.of(root));

        @Override
        public void beginObject(String name) {
            open.push(open.peek().putObject(name));
        }

        @Override
        public void endObject() {
            open.pop();
        }

        @Override
        public void string(String name, String value) {
            open.peek().put(name, value);
        }

        @Override
        public void integer(String name, long value) {
            open.peek().put(name, value);
        }

        @Override
        public void absent(String name) {
            open.peek().putNull(name); // as the JSON report writes it
        }

        @Override
        public void decimal(String name, double value) {
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                open.peek().putNull(name);
            } else {
                open.peek().put(name, Math.round(value * 1000.0) / 1000.0);
            }
        }

        @Override
        public void bool(String name, boolean value) {
            open.peek().put(name, value);
        }

        @Override
        public void integers(String name, long[] values, int count) {
            var array = open.peek().putArray(name);
            for (int i = 0; i < count; i++) {
                array.add(values[i]);
            }
        }
    }
}
