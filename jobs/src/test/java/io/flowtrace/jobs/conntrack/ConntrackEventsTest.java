package io.flowtrace.jobs.conntrack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.ConntrackEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NetlinkSizer;
import io.flowtrace.core.testing.ConntrackRecordings;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ConntrackEvents (schemas mapping) on every committed real ctnetlink message, through the agent's Avro mapping. */
class ConntrackEventsTest {
    private static final Vantage VANTAGE = new Vantage("test", "ct");
    private final NetlinkSizer sizer = new NetlinkSizer();

    @Test
    void sizesEveryRecordedMessageExactlyWithAndWithoutTheWireSize() {
        int checked = 0;
        for (String name : ConntrackRecordings.CASES) {
            KernelFeatures f = ConntrackRecordings.features(name);
            long received = 1_796_000_000_000_000_000L;
            for (byte[] message : ConntrackFixtures.messages(name)) {
                ConntrackMessage core = ConntrackFixtures.parse(message, received += 1_000_000L);
                io.flowtrace.avro.ConntrackEvent avro =
                        ConntrackFixtures.toAvro(core, VANTAGE, ConntrackSource.NETLINK);
                assertThat(ConntrackEvents.invalidReason(avro)).as("%s", name).isNull();

                ConntrackEvents.Sizes raw = ConntrackEvents.size(avro, f, sizer);
                assertThat(raw.exactFromWire()).isTrue();
                assertThat(raw.exactBytes()).as("%s exact = real length", name).isEqualTo(message.length);
                assertThat(raw.estimatedBytes()).isEqualTo(sizer.estimatedSize(core, f));
                assertThat(raw.truesizeBytes()).isEqualTo(sizer.truesize(core, f));

                // The text source: no wire size, no attribute list; the layout is inferred from the values.
                io.flowtrace.avro.ConntrackEvent text = io.flowtrace.avro.ConntrackEvent.newBuilder(avro)
                        .setWireSize(null)
                        .setAttributeTypes(List.of())
                        .setSource(ConntrackSource.CONNTRACK_TOOL)
                        .build();
                ConntrackEvents.Sizes inferred = ConntrackEvents.size(text, f, sizer);
                assertThat(inferred.exactFromWire()).isFalse();
                assertThat(inferred.exactBytes())
                        .as("%s inferred exact = real length", name)
                        .isEqualTo(message.length);
                assertThat(inferred.truesizeBytes()).isEqualTo(raw.truesizeBytes());
                assertThat(ConntrackEvents.timeNanos(avro)).isEqualTo(core.timeNanos());
                checked++;
            }
        }
        assertThat(checked).isEqualTo(745);
    }

    @Test
    void givesAReasonForAbsurdRecords() {
        io.flowtrace.avro.ConntrackEvent good = ConntrackFixtures.toAvro(
                ConntrackFixtures.parse(ConntrackFixtures.messages("v4_plain").get(0)),
                VANTAGE,
                ConntrackSource.NETLINK);
        assertThat(ConntrackEvents.invalidReason(good)).isNull();
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setL3Proto(7)))
                .contains("l3_proto 7");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setTimeNs(1)))
                .contains("between 2000 and 2100");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setEventTimestampNs(5L)))
                .contains("event timestamp");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setWireSize(3)))
                .contains("wire_size 3");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setWireSize(1 << 20)))
                .contains("wire_size");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setEventType(ConntrackEventType.UNKNOWN)))
                .contains("event_type");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setVantage(new Vantage("", "x"))))
                .contains("agent_id");
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setAttributeTypes(List.of(1, 900))))
                .contains("attribute type 900");
        var orig = io.flowtrace.avro.CtTuple.newBuilder(good.getOrig())
                .setSrc(ByteBuffer.wrap(new byte[5]))
                .build();
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setOrig(orig)))
                .contains("address lengths 5/4");
        var port = io.flowtrace.avro.CtTuple.newBuilder(good.getReply())
                .setSrcPort(70_000)
                .build();
        assertThat(reason(io.flowtrace.avro.ConntrackEvent.newBuilder(good).setReply(port)))
                .contains("port out of range");
        assertThat(ConntrackEvents.invalidReason(io.flowtrace.avro.ConntrackLoss.newBuilder()
                        .setVantage(VANTAGE)
                        .setTimeNs(good.getTimeNs())
                        .setEnobufsCount(-1)
                        .build()))
                .contains("enobufs_count");
    }

    @Test
    void parsesKernelFeatureSpecs() {
        assertThat(ConntrackEvents.parseFeatures("stock")).isEqualTo(KernelFeatures.stock());
        assertThat(ConntrackEvents.parseFeatures("stock,acct=false,timestamp=false"))
                .isEqualTo(KernelFeatures.stock().withAcct(false).withTimestamp(false));
        assertThat(ConntrackEvents.parseFeatures("labels=true,secctx=12").secctxLength())
                .isEqualTo(12);
        assertThatThrownBy(() -> ConntrackEvents.parseFeatures("stock,bogus=1"))
                .hasMessageContaining("unknown kernel feature");
        assertThatThrownBy(() -> ConntrackEvents.parseFeatures("acct=yes")).hasMessageContaining("true or false");
    }

    private static String reason(io.flowtrace.avro.ConntrackEvent.Builder b) {
        return ConntrackEvents.invalidReason(b.build());
    }
}
