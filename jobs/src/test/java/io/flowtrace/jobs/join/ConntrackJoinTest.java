package io.flowtrace.jobs.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The join's pure rules on the real NAT recording (testdata/join) and on constructed port reuse.
 * Truth for the merged entries: ct_dump.py's decoding of the DESTROY messages.
 */
class ConntrackJoinTest {
    private static final Vantage CT = new Vantage("lab", "ftj-r");

    static List<CtFacts> recordedFacts() {
        List<CtFacts> out = new ArrayList<>();
        for (byte[] m : ConntrackFixtures.messages("../join/conntrack")) {
            ConntrackMessage core = ConntrackFixtures.parse(m);
            CtFacts f = CtFacts.of(ConntrackFixtures.toAvro(core, CT, ConntrackSource.NETLINK));
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    static Map<String, Map<String, String>> destroyLines() throws Exception {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(TestData.file("join/conntrack.attrs.txt"))) {
            Map<String, String> f = new HashMap<>();
            for (String kv : line.split(" ")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    f.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            if ("DESTROY".equals(f.get("kind"))) {
                out.put("id:" + f.get("id"), f);
            }
        }
        return out;
    }

    @Test
    void mergingEveryEventOfAnEntryInAnyOrderGivesTheKernelsDestroyFacts() throws Exception {
        Map<String, Map<String, String>> truth = destroyLines();
        List<CtFacts> events = recordedFacts();
        assertThat(events).hasSizeGreaterThan(truth.size());
        for (long seed = 0; seed < 5; seed++) {
            List<CtFacts> shuffled = new ArrayList<>(events);
            if (seed > 0) {
                Collections.shuffle(shuffled, new Random(seed)); // Kafka partitions interleave the events
            }
            Map<String, CtFacts> entries = new HashMap<>();
            for (CtFacts e : shuffled) {
                entries.merge(e.entryId(), e, ConntrackJoin::merge);
            }
            assertThat(entries.keySet()).isEqualTo(truth.keySet());
            for (Map.Entry<String, CtFacts> e : entries.entrySet()) {
                Map<String, String> t = truth.get(e.getKey());
                CtFacts ct = e.getValue();
                assertThat(ct.destroyed).isTrue();
                assertThat(ct.origPackets + "/" + ct.origBytes).isEqualTo(t.get("cto"));
                assertThat(ct.replyPackets + "/" + ct.replyBytes).isEqualTo(t.get("ctr"));
                assertThat(ct.startNs).isEqualTo(Long.parseLong(t.get("tstart")));
                assertThat(ct.stopNs).isEqualTo(Long.parseLong(t.get("tstop")));
                assertThat(ct.tcpState).isEqualTo(Integer.parseInt(t.get("tcpstate")));
                assertThat(ct.origSrc).isEqualTo(t.get("osrc") + ":" + t.get("osport"));
                assertThat(ct.replySrc).isEqualTo(t.get("rsrc") + ":" + t.get("rsport"));
                assertThat(ct.replyDst).isEqualTo(t.get("rdst") + ":" + t.get("rdport"));
            }
        }
    }

    @Test
    void aNatEntryIsKeyedByBothTuplesAndAPlainOneByOne() {
        CtFacts nat = recordedFacts().get(0);
        List<CtFacts> keys = ConntrackJoin.keys(nat);
        assertThat(keys).hasSize(2);
        assertThat(keys.get(0).joinKey).isEqualTo(ConntrackJoin.key("lab", nat.origDst, nat.origSrc));
        assertThat(keys.get(1).joinKey).isEqualTo(ConntrackJoin.key("lab", nat.replySrc, nat.replyDst));
        CtFacts plain = nat.copy();
        plain.replySrc = plain.origDst;
        plain.replyDst = plain.origSrc;
        assertThat(ConntrackJoin.keys(plain)).hasSize(1);
    }

    @Test
    void flowsOnEitherSideMatchWithTheirDirectionsAndAnotherTupleDoesNot() {
        CtFacts ct = destroyed();
        FlowView pre = flow("10.0.0.2:5000", "192.0.2.1:80", 1_000, 2_000);
        FlowConntrack a = ConntrackJoin.join(pre, ct);
        assertThat(a.tupleSide).isEqualTo("original");
        assertThat(a.nat).isEqualTo("snat+dnat");
        assertThat(a.ctC2sPackets).isEqualTo(10);
        assertThat(a.ctS2cPackets).isEqualTo(8);
        assertThat(a.c2sMissingPackets).isEqualTo(10 - pre.c2sPackets);
        assertThat(a.s2cMissingPackets).isEqualTo(8 - pre.s2cPackets);
        FlowView post = flow("198.51.100.1:6000", "10.1.0.9:8080", 1_000, 2_000);
        assertThat(ConntrackJoin.join(post, ct).tupleSide).isEqualTo("reply");
        // A flow whose client was guessed the other way round: directions swap.
        FlowView inverted = flow("192.0.2.1:80", "10.0.0.2:5000", 1_000, 2_000);
        FlowConntrack i = ConntrackJoin.join(inverted, ct);
        assertThat(i.ctC2sPackets).isEqualTo(8);
        assertThat(i.ctS2cPackets).isEqualTo(10);
        assertThat(ConntrackJoin.join(flow("10.0.0.2:5001", "192.0.2.1:80", 1_000, 2_000), ct))
                .isNull();
        // No loss figure before the flow's final record.
        pre.finalRecord = false;
        assertThat(ConntrackJoin.join(pre, ct).c2sMissingPackets).isNull();
    }

    @Test
    void portReuseMatchesEachInstanceWithTheEntryOfItsLifetime() {
        long slack = 2_000_000_000L;
        CtFacts first = destroyed();
        first.startNs = 1_000_000_000_000L;
        first.stopNs = 1_010_000_000_000L;
        CtFacts second = destroyed();
        second.ctId = 99;
        second.startNs = 1_100_000_000_000L;
        second.stopNs = 1_110_000_000_000L;
        FlowView early = flow("10.0.0.2:5000", "192.0.2.1:80", 1_000_000_000L, 1_005_000_000L);
        FlowView late = flow("10.0.0.2:5000", "192.0.2.1:80", 1_100_000_000L, 1_108_000_000L);
        assertThat(ConntrackJoin.overlaps(first, early, slack)).isTrue();
        assertThat(ConntrackJoin.overlaps(second, early, slack)).isFalse();
        assertThat(ConntrackJoin.overlaps(first, late, slack)).isFalse();
        assertThat(ConntrackJoin.overlaps(second, late, slack)).isTrue();
        CtFacts live = destroyed();
        live.destroyed = false;
        live.stopNs = -1;
        assertThat(ConntrackJoin.overlaps(live, late, slack)).isTrue();
    }

    @Test
    void stateExpiresAfterTheWaitOnceDoneAndAfterTheIdleTimeOtherwise() {
        CtFacts ct = destroyed();
        assertThat(ConntrackJoin.expiryNs(ct, 5, 100)).isEqualTo(Math.max(ct.stopNs, ct.eventTimeNs) + 5);
        ct.destroyed = false;
        assertThat(ConntrackJoin.expiryNs(ct, 5, 100)).isEqualTo(ct.eventTimeNs + 100);
        FlowView f = flow("10.0.0.2:5000", "192.0.2.1:80", 1_000, 2_000);
        assertThat(ConntrackJoin.expiryNs(f, 5, 100)).isEqualTo(f.recordTimeUs * 1000 + 5);
        f.finalRecord = false;
        assertThat(ConntrackJoin.expiryNs(f, 5, 100)).isEqualTo(f.recordTimeUs * 1000 + 100);
    }

    /** 10.0.0.2:5000 → 192.0.2.1:80, DNAT to 10.1.0.9:8080, SNAT to 198.51.100.1:6000; 10 / 8 packets. */
    static CtFacts destroyed() {
        CtFacts c = new CtFacts();
        c.agentId = "lab";
        c.ctVantage = "lab/ct";
        c.ctId = 7;
        c.kind = 2;
        c.destroyed = true;
        c.origSrc = "10.0.0.2:5000";
        c.origDst = "192.0.2.1:80";
        c.replySrc = "10.1.0.9:8080";
        c.replyDst = "198.51.100.1:6000";
        c.startNs = 900_000;
        c.stopNs = 3_000_000;
        c.eventTimeNs = 3_000_100;
        c.firstEventNs = 900_000;
        c.origPackets = 10;
        c.origBytes = 1000;
        c.replyPackets = 8;
        c.replyBytes = 800;
        return c;
    }

    static FlowView flow(String client, String server, long firstUs, long lastUs) {
        FlowView f = new FlowView();
        f.agentId = "lab";
        f.vantage = "lab/eth0";
        f.client = client;
        f.server = server;
        f.instance = firstUs;
        f.firstSeenUs = firstUs;
        f.lastSeenUs = lastUs;
        f.recordTimeUs = lastUs + 10;
        f.c2sPackets = 9;
        f.s2cPackets = 8;
        f.finalRecord = true;
        return f;
    }
}
