package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the budget against the ENOBUFS experiment of scripts/capture-conntrack.sh: 400 new UDP
 * conntracks in ~0.4 s while three listeners did not read for ~1.4 s; burst.facts holds what the kernel
 * did to each (recv() results and /proc/net/netlink), burst.nl.bin the events the big listener got.
 */
class EventSizeBudgetTest {
    private static final long STALL = 1_000_000_000L;
    private static Properties facts;
    private static List<ConntrackMessage> burst;

    @BeforeAll
    static void load() throws Exception {
        facts = new Properties();
        try (Reader r = Files.newBufferedReader(RecordedCase.DIR.resolve("burst.facts"))) {
            facts.load(r);
        }
        burst = new ArrayList<>();
        CtnetlinkParser p = new CtnetlinkParser();
        for (byte[] m : RecordedCase.load("burst").messages()) {
            burst.add(p.parse(m));
        }
    }

    private static long fact(String key) {
        return Long.parseLong(facts.getProperty(key));
    }

    private static BudgetReport run(int requestedRcvbuf) {
        BudgetConfig cfg = BudgetConfig.defaults().withDrainLatencyNanos(STALL).withRequestedRcvbuf(requestedRcvbuf);
        EventSizeBudget b = new EventSizeBudget("router", burst.get(0).timeNanos(), cfg);
        burst.forEach(b::add);
        return b.report();
    }

    @Test
    void predictsTheOverflowTheSmallBufferListenerActuallySuffered() {
        BudgetReport r = run((int) fact("small.rcvbuf_requested"));
        assertThat(r.effectiveRcvbuf()).isEqualTo(fact("small.rcvbuf_effective"));
        assertThat(r.risk()).isEqualTo(BudgetReport.EnobufsRisk.OVERFLOW);
        assertThat(r.predictedDrops()).isEqualTo(fact("small.drops_at_exit"));
        assertThat(burst.size() - r.predictedDrops()).isEqualTo(fact("small.received"));
        assertThat(r.predictedEnobufs()).isEqualTo(fact("small.enobufs"));
    }

    @Test
    void predictsNoLossWithTheConntrackdDefaultBufferAsObserved() {
        BudgetReport r = run((int) fact("conntrackd.rcvbuf_requested"));
        assertThat(r.effectiveRcvbuf()).isEqualTo(fact("conntrackd.rcvbuf_effective"));
        assertThat(r.predictedDrops()).isZero().isEqualTo(fact("conntrackd.drops_at_exit"));
        assertThat(r.predictedEnobufs()).isEqualTo(fact("conntrackd.enobufs"));
        assertThat(r.risk()).isNotEqualTo(BudgetReport.EnobufsRisk.OVERFLOW);
        // the whole burst sat in the queue during the stall: what /proc/net/netlink showed as Rmem
        assertThat(r.bufferNeeded()).isEqualTo(fact("conntrackd.rmem_before_drain"));
        assertThat(r.recommendedRcvbuf() * 2).isGreaterThanOrEqualTo(r.bufferNeeded());
        assertThat(r.recommendedRcvbuf()).isLessThan(fact("conntrackd.rcvbuf_requested"));
    }

    @Test
    void summarisesSizesRatesAndWasteOfTheBurst() {
        BudgetReport r = run(BudgetConfig.CONNTRACKD_DEFAULT_RCVBUF);
        assertThat(r.newEvents()).isEqualTo(400);
        assertThat(r.updateEvents() + r.destroyEvents()).isZero();
        // every event is an IPv4 UDP NEW of 160 B (python ct_dump.py len=160 for all 400)
        assertThat(r.minSize()).isEqualTo(160);
        assertThat(r.maxSize()).isEqualTo(160);
        assertThat(r.p99Size()).isEqualTo(160);
        // estimate for UDP: nlmsg_total_size(500) = 516; waste = 1 - 160/516
        assertThat(r.wasteRatio()).isCloseTo(1 - 160.0 / 516, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.truesizeBytesPerSecond()).isEqualTo(400 * 1280.0);
        assertThat(r.peakTruesize100ms()).isLessThanOrEqualTo(400 * 1280L).isGreaterThan(0);
        assertThat(r.peakBytes10ms()).isLessThanOrEqualTo(r.peakBytes100ms());
    }

    @Test
    void countsObservedEnobufsAsData() throws IOException {
        EventSizeBudget b = new EventSizeBudget("x", 0, BudgetConfig.defaults());
        assertThat(b.report().observedEnobufs()).isEqualTo(-1);
        b.addObservedEnobufs(2);
        b.addObservedEnobufs(1);
        assertThat(b.report().observedEnobufs()).isEqualTo(3);
    }
}
