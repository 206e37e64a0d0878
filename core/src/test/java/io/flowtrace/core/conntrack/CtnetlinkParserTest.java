package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.net.IpLiteral;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CtnetlinkParserTest {
    private final CtnetlinkParser parser = new CtnetlinkParser();

    @Test
    void parsesEveryRecordedMessageIntoTheAttributeTreeThePythonDecoderSaw() throws Exception {
        int total = 0;
        for (RecordedCase c : RecordedCase.all()) {
            assertThat(c.messages()).as(c.name()).hasSameSizeAs(c.reference()).isNotEmpty();
            for (int i = 0; i < c.messages().size(); i++) {
                Map<String, String> ref = c.reference().get(i);
                ConntrackMessage e = parser.parse(c.messages().get(i));
                String where = c.name() + " #" + i;
                assertThat(e.attributes().describe()).as(where).isEqualTo(ref.get("tree"));
                assertThat(e.type().name()).as(where).isEqualTo(ref.get("kind"));
                assertThat(e.family()).as(where).isEqualTo(Integer.parseInt(ref.get("family")));
                assertThat(e.wireSize())
                        .as(where)
                        .isEqualTo(Integer.parseInt(ref.get("len")))
                        .isEqualTo(Integer.parseInt(ref.get("rec")));
                assertThat(e.unknown()).as(where).isEmpty();
                total++;
            }
        }
        assertThat(total).isGreaterThan(700);
    }

    @Test
    void decodesTheValuesThePythonDecoderReadFromTheSameBytes() throws Exception {
        for (RecordedCase c : RecordedCase.all()) {
            for (int i = 0; i < c.messages().size(); i++) {
                Map<String, String> r = c.reference().get(i);
                ConntrackMessage e = parser.parse(c.messages().get(i));
                String where = c.name() + " #" + i;
                assertThat(e.id()).as(where).isEqualTo(Long.parseLong(r.get("id")));
                assertThat(e.orig().srcText()).as(where).isEqualTo(canonical(r.get("osrc")));
                assertThat(e.orig().dstText()).as(where).isEqualTo(canonical(r.get("odst")));
                assertThat(e.reply().srcText()).as(where).isEqualTo(canonical(r.get("rsrc")));
                assertThat(e.reply().dstText()).as(where).isEqualTo(canonical(r.get("rdst")));
                assertThat(e.proto()).as(where).isEqualTo(Integer.parseInt(r.get("proto")));
                assertThat(e.orig().srcPort()).as(where).isEqualTo(num(r, "osport"));
                assertThat(e.orig().dstPort()).as(where).isEqualTo(num(r, "odport"));
                assertThat(e.reply().srcPort()).as(where).isEqualTo(num(r, "rsport"));
                assertThat(e.reply().dstPort()).as(where).isEqualTo(num(r, "rdport"));
                assertThat(e.orig().icmpId()).as(where).isEqualTo(num(r, "oicmpid"));
                assertThat(e.orig().icmpType()).as(where).isEqualTo(num(r, "oicmptype"));
                assertThat(e.status()).as(where).isEqualTo(num(r, "status"));
                assertThat(e.timeout()).as(where).isEqualTo(num(r, "timeout"));
                assertThat(e.mark()).as(where).isEqualTo(num(r, "mark"));
                assertThat(e.zone()).as(where).isEqualTo(num(r, "zone"));
                assertThat(e.tcp() == null ? -1 : e.tcp().state()).as(where).isEqualTo(num(r, "tcpstate"));
                assertThat(counters(e.origCounters())).as(where).isEqualTo(r.getOrDefault("cto", "-"));
                assertThat(counters(e.replyCounters())).as(where).isEqualTo(r.getOrDefault("ctr", "-"));
                assertThat(e.timestampStart()).as(where).isEqualTo(num(r, "tstart"));
                assertThat(e.timestampStop()).as(where).isEqualTo(num(r, "tstop"));
                assertThat(e.eventTimestampNanos()).as(where).isEqualTo(num(r, "tevent"));
            }
        }
    }

    @Test
    void keepsAnUnknownAttributeWithItsTypeAndLength() throws Exception {
        byte[] real = RecordedCase.load("v4_plain").messages().get(0);
        byte[] m = Arrays.copyOf(real, real.length + 12);
        // type 99, nla_len 4 + 6 payload bytes, padded to 12 on the wire
        m[real.length] = 10;
        m[real.length + 2] = 99;
        m[0] = (byte) (real.length + 12);
        ConntrackMessage e = parser.parse(m);
        assertThat(e.unknown()).containsExactly(new UnknownAttribute("", 99, 6, real.length));
        assertThat(e.attributes().describe()).endsWith(",99:6");
        assertThat(new NetlinkSizer().exactSize(e)).isEqualTo(real.length + 12);
    }

    @Test
    void reportsTheOffsetOfAnAttributeThatRunsPastTheMessage() {
        byte[] real = RecordedCase.load("v4_plain").messages().get(0);
        byte[] m = real.clone();
        // first attribute (CTA_TUPLE_ORIG at byte 20) claims 0x7ff0 bytes
        m[20] = (byte) 0xf0;
        m[21] = 0x7f;
        assertThatThrownBy(() -> parser.parse(m))
                .isInstanceOf(CtnetlinkParseException.class)
                .satisfies(ex ->
                        assertThat(((CtnetlinkParseException) ex).offset()).isEqualTo(20));
    }

    @Test
    void rejectsANonConntrackMessageAtTheTypeField() {
        byte[] m = RecordedCase.load("v4_plain").messages().get(0).clone();
        m[5] = 2; // NFNL_SUBSYS_CTNETLINK_EXP
        assertThatThrownBy(() -> parser.parse(m))
                .isInstanceOf(CtnetlinkParseException.class)
                .satisfies(ex ->
                        assertThat(((CtnetlinkParseException) ex).offset()).isEqualTo(4));
    }

    private static String canonical(String addr) {
        return ConntrackTuple.addressText(IpLiteral.parse(addr));
    }

    private static long num(Map<String, String> r, String key) {
        String v = r.get(key);
        return v == null ? -1 : Long.parseLong(v);
    }

    private static String counters(DirectionCounters c) {
        return c == null ? "-" : c.packets() + "/" + c.bytes();
    }
}
