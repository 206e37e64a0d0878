package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded random mutations of real messages (byte flips, attribute and nested-attribute length lies,
 * truncation, nlmsg_len lies up to 2^31-1, NLA_F_NESTED flips, grown tails): the parser either
 * returns an event or its typed error, within {@link FuzzBudget}'s time and allocation per input.
 * -Dfuzz.iterations sets the count (10^5 here, 10^6 with -Pfuzz-heavy).
 */
class CtnetlinkParserFuzzTest {
    private static final int INPUTS = FuzzBudget.ITERATIONS;

    @Test
    void survivesOneHundredThousandMutatedRealMessagesWithTypedErrorsOnly() {
        FuzzBudget budget = new FuzzBudget();
        List<byte[]> seeds = new ArrayList<>();
        for (RecordedCase c : RecordedCase.all()) {
            seeds.addAll(c.messages().subList(0, Math.min(30, c.messages().size())));
        }
        CtnetlinkParser parser = new CtnetlinkParser();
        NetlinkSizer sizer = new NetlinkSizer();
        SplittableRandom rnd = new SplittableRandom(20240505L);
        int parsed = 0;
        int rejected = 0;
        for (int i = 0; i < INPUTS; i++) {
            byte[] m = mutate(seeds.get(rnd.nextInt(seeds.size())), rnd);
            budget.begin();
            try {
                ConntrackMessage e = parser.parse(m, 0, m.length, 0);
                int size = sizer.exactSize(e);
                // a final attribute may omit its tail padding (nla_ok() accepts it)
                if (size - e.wireSize() < 0 || size - e.wireSize() > 3) {
                    assertThat(size - e.wireSize()).as("input %d", i).isBetween(0, 3);
                }
                parsed++;
            } catch (CtnetlinkParseException ex) {
                if (ex.offset() < 0 || ex.offset() > m.length) {
                    assertThat(ex.offset()).as("input %d", i).isBetween(0, m.length);
                }
                rejected++;
            }
            budget.end(i);
        }
        assertThat(budget.worstNanos).as(budget.toString()).isLessThan(FuzzBudget.MAX_NANOS_PER_INPUT);
        assertThat(budget.worstBytes).as(budget.toString()).isLessThan(FuzzBudget.MAX_BYTES_PER_INPUT);
        assertThat(parsed + rejected).isEqualTo(INPUTS);
        assertThat(parsed).isPositive();
        assertThat(rejected).isPositive();
    }

    private static byte[] mutate(byte[] seed, SplittableRandom rnd) {
        byte[] m = seed.clone();
        int edits = 1 + rnd.nextInt(4);
        for (int k = 0; k < edits && m.length > 0; k++) {
            switch (rnd.nextInt(8)) {
                case 0 -> m[rnd.nextInt(m.length)] = (byte) rnd.nextInt(256);
                case 1 -> { // an attribute length field (4-aligned offsets past the headers)
                    int off = 20 + 4 * rnd.nextInt(Math.max(1, (m.length - 20) / 4));
                    if (off + 1 < m.length) {
                        int v = rnd.nextBoolean() ? rnd.nextInt(65536) : rnd.nextInt(16);
                        m[off] = (byte) v;
                        m[off + 1] = (byte) (v >> 8);
                    }
                }
                case 2 -> m = java.util.Arrays.copyOf(m, rnd.nextInt(m.length + 1));
                case 3 -> { // nlmsg_len itself
                    if (m.length >= 4) {
                        int v = rnd.nextInt(m.length + 64);
                        m[0] = (byte) v;
                        m[1] = (byte) (v >> 8);
                        m[2] = 0;
                        m[3] = rnd.nextInt(20) == 0 ? (byte) 0xff : 0;
                    }
                }
                case 4 -> { // flip the NLA_F_NESTED bit of some attribute type
                    int off = 23 + 4 * rnd.nextInt(Math.max(1, (m.length - 20) / 4));
                    if (off < m.length) {
                        m[off] ^= (byte) 0x80;
                    }
                }
                case 6 -> { // claim 2^31-1 (or 2^32-1) bytes in nlmsg_len: must not allocate for it
                    if (m.length >= 4) {
                        m[0] = (byte) 0xff;
                        m[1] = (byte) 0xff;
                        m[2] = (byte) 0xff;
                        m[3] = rnd.nextBoolean() ? (byte) 0x7f : (byte) 0xff;
                    }
                }
                case 7 -> { // a nested attribute claims more than its parent holds (or less than a header)
                    int off = 20 + 4 * rnd.nextInt(Math.max(1, (m.length - 20) / 4));
                    if (off + 3 < m.length && (m[off + 3] & 0x80) != 0) {
                        int v = rnd.nextBoolean() ? 0xffff : rnd.nextInt(4);
                        m[off] = (byte) v;
                        m[off + 1] = (byte) (v >> 8);
                    } else if (off + 1 < m.length) {
                        m[off] = (byte) 0xfc;
                        m[off + 1] = (byte) 0xff;
                    }
                }
                default -> { // grow with random bytes and claim them
                    int extra = rnd.nextInt(64);
                    byte[] g = java.util.Arrays.copyOf(m, m.length + extra);
                    for (int j = m.length; j < g.length; j++) {
                        g[j] = (byte) rnd.nextInt(256);
                    }
                    if (g.length >= 2) {
                        g[0] = (byte) g.length;
                        g[1] = (byte) (g.length >> 8);
                    }
                    m = g;
                }
            }
        }
        return m;
    }
}
