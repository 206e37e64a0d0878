package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class NetlinkSizerTest {
    private final CtnetlinkParser parser = new CtnetlinkParser();
    private final NetlinkSizer sizer = new NetlinkSizer();

    @Test
    void exactSizeEqualsTheRecordedMessageLengthForEveryRawEvent() throws Exception {
        int n = 0;
        for (RecordedCase c : RecordedCase.all()) {
            for (byte[] m : c.messages()) {
                assertThat(sizer.exactSize(parser.parse(m))).as(c.name()).isEqualTo(m.length);
                n++;
            }
        }
        assertThat(n).isGreaterThan(700);
    }

    @Test
    void kernelLayoutRebuiltFromValuesMatchesTheRealAttributeList() throws Exception {
        for (RecordedCase c : RecordedCase.all()) {
            for (byte[] m : c.messages()) {
                ConntrackMessage e = parser.parse(m);
                PresentAttributes inferred = KernelEventLayout.infer(e, c.features());
                assertThat(inferred.describe())
                        .as(c.name())
                        .isEqualTo(e.attributes().describe());
            }
        }
    }

    @Test
    void eventTimestampAttribute27IsTwelveBytesOnEveryEventWithTimestampsOnAndAbsentWithout() throws Exception {
        for (RecordedCase c : RecordedCase.all()) {
            for (byte[] m : c.messages()) {
                NlAttribute a = parser.parse(m).attributes().find(CtaTypes.TIMESTAMP_EVENT);
                if (c.features().timestamp()) {
                    assertThat(a).as(c.name()).isNotNull();
                    assertThat(a.totalSize()).isEqualTo(12);
                } else {
                    assertThat(a).as(c.name()).isNull();
                }
            }
        }
    }

    @Test
    void estimateForTcpWithAcctAndTimestampsIsTheHandSummedCtnetlinkNlmsgSize() {
        // ctnetlink_nlmsg_size(), 6.18, by hand: nfgenmsg 4; 3 tuple nests 12; 3 CTA_TUPLE_IP 12;
        // 3 CTA_TUPLE_PROTO 12; 3 CTA_PROTO_NUM 24; ID 8; STATUS 8; acct 2*4+4*12=56;
        // timestamp 4+2*12=28; TIMEOUT 8; PROTOINFO 4; HELP 4; HELP_NAME 20; NAT 2*4+6*8=56;
        // MARK 8; ZONE 8; proto: ip policy 3*(8+8+20+20)=168 + TCP_NLATTR_SIZE 32 + ports 3*16=48;
        // CTA_TIMESTAMP_EVENT 12  => 532; plus nlmsghdr 16 => 548.
        assertThat(NetlinkSizer.estimatePayload(CtaTypes.IPPROTO_TCP, KernelFeatures.stock()))
                .isEqualTo(532);
        assertThat(NetlinkSizer.estimatePayload(CtaTypes.IPPROTO_UDP, KernelFeatures.stock()))
                .isEqualTo(532 - 32);
        assertThat(NetlinkSizer.estimatePayload(CtaTypes.IPPROTO_ICMP, KernelFeatures.stock()))
                .isEqualTo(532 - 80 + 72);
        KernelFeatures off = KernelFeatures.stock().withAcct(false).withTimestamp(false);
        assertThat(NetlinkSizer.estimatePayload(CtaTypes.IPPROTO_TCP, off)).isEqualTo(532 - 56 - 28);
    }

    @Test
    void truesizeOfAnIpv4EventIs1280AsTheKernelChargedInTheBurstExperiment() throws IOException {
        Properties facts = new Properties();
        try (Reader r = Files.newBufferedReader(RecordedCase.DIR.resolve("burst.facts"))) {
            facts.load(r);
        }
        long queued = Long.parseLong(facts.getProperty("big.received"));
        long rmem = Long.parseLong(facts.getProperty("big.rmem_before_drain"));
        // hand: alloc_skb(548): SKB_HEAD_ALIGN = 576 + 320 = 896 -> kmalloc-1k; end = 1024 - 320 = 704;
        // truesize = 704 + 256 + 320 = 1280; netlink_trim: (704 - 160) * 2 = 1088 < 1280, no trim.
        SkbCharge c = SkbAllocator.x86_64().charge(532 - 32, 160);
        assertThat(c).isEqualTo(new SkbCharge(516, 1024, 1280, false, 1280));
        assertThat(rmem / queued).isEqualTo(c.truesize());
        assertThat(rmem % queued).isZero();
    }

    @Test
    void netlinkTrimShrinksAMostlyEmptyHeadIntoTheSmallHeadCache() {
        // hand: alloc_skb(4016): 4032 + 320 = 4352 -> kmalloc-8k; end 7872; truesize 8448;
        // delta 7772 * 2 >= 8448 -> pskb_expand_head to 100 B: 128 + 320 = 448 <= 576 -> small head;
        // truesize += (576 - 320) - 7872 = 832.
        assertThat(SkbAllocator.x86_64().charge(4000, 100)).isEqualTo(new SkbCharge(4016, 576, 8448, true, 832));
    }
}
