package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Synchronised retries and the setup statistics of the per-server table, by hand. */
class OpenVpnServerTableTest {
    private static final long MS = 1_000_000L;

    @Test
    void countsRetriesOfDifferentSessionsWithinFiveMillisecondsOfEachOther() {
        // (time, session): at 1000 / 1003 / 1007 ms sessions 0, 1, 2 retry within 5 ms of another
        // session's retry (3 count); at 2000 / 2002 ms session 0 retries twice, near only itself, and
        // session 1's retry at 2012 ms is 10 ms from both (none of these 3 count)
        List<long[]> retries = List.of(
                new long[] {1000 * MS, 0},
                new long[] {1003 * MS, 1},
                new long[] {1007 * MS, 2},
                new long[] {2000 * MS, 0},
                new long[] {2002 * MS, 0},
                new long[] {2012 * MS, 1});
        assertThat(OpenVpnServerTable.synchronised(retries)).isEqualTo(3);
    }

    @Test
    void meanSampleSdAndNearestRankPercentiles() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        // nearest rank: p50 = 5th value, p90 = 9th, p99 = 10th (ceil(0.99 * 10) = 10)
        assertThat(OpenVpnServerTable.percentile(sorted, 50)).isEqualTo(0.005);
        assertThat(OpenVpnServerTable.percentile(sorted, 90)).isEqualTo(0.009);
        assertThat(OpenVpnServerTable.percentile(sorted, 99)).isEqualTo(0.010);
        assertThat(OpenVpnServerTable.percentile(new long[0], 50)).isNaN();
    }
}
