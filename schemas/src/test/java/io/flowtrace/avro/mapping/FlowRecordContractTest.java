package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.FlatReport;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowReport;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * core's metric catalogue against the FlowRecord contract, both ways, and the Avro record of real
 * flows against their JSON report: no field of one output is silently missing from the other.
 */
class FlowRecordContractTest {

    /** Leaves of the contract by JSON path; a record the catalogue holds as one field (flow.vantage) is a leaf. */
    private static Map<String, Schema> contractLeaves() {
        Map<String, Schema> leaves = new LinkedHashMap<>();
        collect("", FlowRecord.getClassSchema(), leaves);
        return leaves;
    }

    private static void collect(String prefix, Schema record, Map<String, Schema> leaves) {
        for (Schema.Field f : record.getFields()) {
            String path = prefix + f.name();
            Schema type = ReportToAvro.nonNull(f.schema());
            if (type.getType() == Schema.Type.RECORD && FlowFields.byJsonPath(path) == null) {
                collect(path + ".", type, leaves);
            } else {
                leaves.put(path, f.schema());
            }
        }
    }

    @Test
    void everyContractFieldIsACatalogueFieldOrSetByTheJob() {
        for (String path : contractLeaves().keySet()) {
            FlowField f = FlowFields.byJsonPath(path);
            assertThat(f != null && f.inAvro() || FlowFields.CONTRACT_ONLY.containsKey(path))
                    .as(
                            "FlowRecord.avsc has %s, which the catalogue (core FlowFields) neither declares nor lists as contract-only",
                            path)
                    .isTrue();
        }
    }

    @Test
    void everyCatalogueFieldIsInTheContractWithItsKindAndNullabilityUnlessReportOnly() {
        Map<String, Schema> leaves = contractLeaves();
        for (FlowField f : FlowFields.all()) {
            for (String path : f.jsonPaths()) {
                Schema avro = leaves.get(path);
                if (!f.inAvro()) {
                    assertThat(avro)
                            .as("%s is marked report-only (%s) but the contract has it", path, f.reportOnly())
                            .isNull();
                    continue;
                }
                assertThat(avro)
                        .as("%s is in the catalogue's contract but not in FlowRecord.avsc", path)
                        .isNotNull();
                assertThat(avro.isNullable()).as("nullability of %s", path).isEqualTo(f.nullable());
                assertThat(fits(f.kind(), ReportToAvro.nonNull(avro)))
                        .as("%s: %s in the report, %s in the contract", path, f.kind(), avro)
                        .isTrue();
            }
        }
    }

    private static boolean fits(FlowField.Kind kind, Schema avro) {
        Schema.Type t = avro.getType();
        return switch (kind) {
            case STRING ->
                t == Schema.Type.STRING
                        || t == Schema.Type.ENUM
                        || avro.getFullName().equals("io.flowtrace.avro.Vantage");
            case INTEGER -> t == Schema.Type.LONG || t == Schema.Type.INT;
            case DECIMAL -> t == Schema.Type.DOUBLE || t == Schema.Type.FLOAT || t == Schema.Type.LONG;
            case BOOL -> t == Schema.Type.BOOLEAN;
            case INTEGERS -> t == Schema.Type.ARRAY && avro.getElementType().getType() == Schema.Type.LONG;
        };
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/cubic-loss.sender.pcap.gz",
                "tcp/zero-window.receiver.pcap.gz",
                "tcp/short-http.sender.pcap.gz"
            })
    void theAvroRecordOfEveryFlowHoldsItsReportValues(String capture) throws Exception {
        List<Object[]> checked = new ArrayList<>();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlatReport report = new FlatReport();
                        FlowReport.visit(key, instance, flow, report);
                        FlowRecord record = FlowRecords.of(key, instance, flow, 1L);
                        AvroFlowValues avro = new AvroFlowValues(record);
                        for (FlowField f : FlowFields.all()) {
                            if (!f.inAvro()) {
                                continue;
                            }
                            for (FlowField.Side side : f.scope() == FlowField.Scope.FLOW
                                    ? new FlowField.Side[] {null}
                                    : FlowField.Side.values()) {
                                String path = side == null ? f.path() : side.jsonName() + "." + f.path();
                                checked.add(new Object[] {
                                    path, inContract(f, report.fields.get(path)), shown(avro.value(f, side))
                                });
                            }
                        }
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }

        assertThat(checked).isNotEmpty();
        for (Object[] c : checked) {
            assertThat(c[2]).as("%s in %s", c[0], capture).isEqualTo(c[1]);
        }
    }

    /** The report value as the contract holds it (docs/schemas.md): NaN and negative absent values are null. */
    private static Object inContract(FlowField f, Object report) {
        if (report instanceof Double d && Double.isNaN(d)) {
            return null;
        }
        if (report instanceof Long l && l < 0 && f.nullable()) {
            return null;
        }
        if (report instanceof Double d && isLongInContract(f)) {
            return (double) Math.round(d);
        }
        return report instanceof Number n ? (Object) n.doubleValue() : report;
    }

    private static boolean isLongInContract(FlowField f) {
        Schema s = ReportToAvro.nonNull(contractLeaves().get(f.jsonPaths().get(0)));
        return s.getType() == Schema.Type.LONG;
    }

    private static Object shown(Object avro) {
        if (avro instanceof long[] values) {
            return Arrays.toString(values);
        }
        return avro instanceof Number n ? (Object) n.doubleValue() : avro;
    }

    @Test
    void mappingFailsOnAReportFieldTheContractLacksUnlessTheCatalogueMarksItReportOnly() {
        Schema current = FlowRecord.getClassSchema();
        Schema withoutDupAcks = new Schema.Parser()
                .parse(current.toString()
                        .replace(
                                "{\"name\":\"dup_acks\",\"type\":\"long\"",
                                "{\"name\":\"dup_acks_renamed\",\"type\":\"long\""));
        assertThat(withoutDupAcks.getField("c2s").schema().getField("dup_acks")).isNull();
        GenericData.Record record = new GenericRecordBuilder(withoutDupAcks).build();
        var flow = EmptyFlow.analyzer();

        assertThatThrownBy(() -> FlowReport.visit(EmptyFlow.KEY, 0, flow, new ReportToAvro(record)))
                .isInstanceOf(AvroRuntimeException.class)
                .hasMessageContaining("c2s.dup_acks");
        // the current contract maps cleanly
        FlowReport.visit(EmptyFlow.KEY, 0, flow, new ReportToAvro(new GenericRecordBuilder(current).build()));
    }
}
