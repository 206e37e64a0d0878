package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The summary line on stderr reads the same whatever the user's locale, as the rest of
 * {@code analyze}'s output does: digits grouped with commas, a decimal point, decode statuses in
 * lower case without a Turkish dotless i. A German locale used to give {@code 5.352 records ...
 * 0,11 s}, which the benchmark scripts and any reader of the line parse as other numbers, and a
 * Turkish one {@code non fırst fragment}.
 */
class SummaryLocaleTest {
    @ParameterizedTest
    @CsvSource({"de,DE", "tr,TR", "fr,FR", "hi,IN", "en,US"})
    void summaryIsTheSameInEveryLocale(String language, String country) throws Exception {
        List<String> jvm = List.of("-Duser.language=" + language, "-Duser.country=" + country);
        // 5,352 records: capinfos -c; 4 not TCP (IPv6 multicast); 2 flows
        String bulk = summary(jvm, "tcp/cubic-loss.sender.pcap.gz");
        assertThat(bulk).contains("; 5,352 records, 5,348 TCP, 4 not tcp; 2 flows; 0 format errors; ");
        assertThat(bulk).matches(".*; [0-9]+\\.[0-9]{2} s \\([0-9,]+ packets/s\\)$");
        // 56 records (capinfos -c), 12 of them non-first IPv4 fragments
        assertThat(summary(jvm, "decoding/ipv4-frag-opts.pcap"))
                .contains("; 56 records, 34 TCP, 10 not tcp, 12 non first fragment; ");
    }

    private static String summary(List<String> jvm, String capture) throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        null, jvm, "analyze", "-l", TestData.file(capture).toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        List<String> stderr = r.stderrLines();
        assertThat(stderr).hasSize(1);
        return stderr.get(0);
    }
}
