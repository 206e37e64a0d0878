package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md against the files it describes: the dashboard and query counts counted in
 * deploy/grafana/dashboards, and the Secret commands (every PostgreSQL Secret with its CA, no password
 * read with --from-file, which keeps an editor's trailing newline).
 */
class DeployDocsTest {
    private static final List<String> NUMBERS =
            List.of("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten");

    private static String operations() throws IOException {
        return Files.readString(RepoFiles.path("docs/operations.md"));
    }

    @Test
    void dashboardAndQueryCountsAreCountedNotRemembered() throws IOException {
        List<GrafanaDashboards.Dashboard> dashboards = GrafanaDashboards.all();
        int panelQueries = dashboards.stream().mapToInt(d -> d.queries().size()).sum();
        long variableQueries = dashboards.stream()
                .flatMap(d -> d.variables().stream())
                .filter(v -> v.type().equals("query"))
                .count();
        String doc = operations();
        Matcher counts = Pattern.compile("every one of the (\\d+) panel queries and (\\d+) variable queries")
                .matcher(doc);
        assertThat(counts.find()).as("the query count sentence").isTrue();
        assertThat(Integer.parseInt(counts.group(1))).isEqualTo(panelQueries);
        assertThat(Long.parseLong(counts.group(2))).isEqualTo(variableQueries);
        Matcher words = Pattern.compile("(?i)\\b(" + String.join("|", NUMBERS) + ") dashboards\\b")
                .matcher(doc);
        int found = 0;
        while (words.find()) {
            found++;
            assertThat(NUMBERS.indexOf(words.group(1).toLowerCase(java.util.Locale.ROOT)))
                    .as("'%s'", words.group())
                    .isEqualTo(dashboards.size());
        }
        assertThat(found).as("sentences that count the dashboards").isGreaterThanOrEqualTo(2);
    }

    /**
     * Copies of one packet captured on several interfaces of {@code any} are flows at their own interfaces
     * (the agent's -y LINUX_SLL2, AnyInterfaceBatchingITCase), neither retransmissions nor doubled rates.
     */
    @Test
    void theCaptureInterfaceRowSaysEachInterfaceIsAVantage() throws IOException {
        String row = operations()
                .lines()
                .filter(l -> l.startsWith("| `agent-iface` |"))
                .findFirst()
                .orElseThrow();
        assertThat(row)
                .contains("vantage of its own", "LINUX_SLL2")
                .doesNotContain("looks retransmitted")
                .doesNotContain("read double");
    }

    @Test
    void everyPostgresSecretCarriesItsCaAndNoPasswordComesFromAFile() throws IOException {
        List<String> creates = new ArrayList<>();
        for (String line : operations().lines().toList()) {
            if (line.contains("kubectl -n flowtrace create secret generic")) {
                creates.add(line.strip());
            }
        }
        for (String secret : List.of("flowtrace-pg-writer", "flowtrace-pg-reader", "flowtrace-pg-retention")) {
            assertThat(creates)
                    .as(secret)
                    .anyMatch(c -> c.contains(" " + secret + " ")
                            && c.contains("--from-file=ca.crt=")
                            && c.contains("--from-literal=password=\"$(cat "));
        }
        assertThat(creates).as("Secret commands").hasSizeGreaterThanOrEqualTo(6);
        assertThat(creates).noneMatch(c -> c.contains("--from-file=password="));
    }
}
