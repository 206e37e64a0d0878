package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * .ci/check-skips.py on hand-written JUnit XML reports (the surefire format: a testcase with a
 * {@code <skipped message="..."/>}): a skip with a reason passes, JUnit's message for an assumption
 * without one and an empty message fail, and no report at all fails.
 */
class CiSkipCheckTest {
    @TempDir
    Path root;

    @Test
    void aSkipWithAReasonPasses() throws Exception {
        report("a", "<skipped message=\"Assumption failed: kubectl is not on the PATH (...)\"/>");
        assertThat(run()).isZero();
    }

    /** failsafe writes the reason as the element's text (the exception), not as a message attribute. */
    @Test
    void failsafesReasonInTheElementsTextCounts() throws Exception {
        report(
                "a",
                "<skipped type=\"org.opentest4j.TestAbortedException\"><![CDATA[org.opentest4j.TestAbortedException:"
                        + " Assumption failed: needs conntrack(8)\n\tat x.y(Z.java:1)\n]]></skipped>");
        assertThat(run()).isZero();
        report(
                "b",
                "<skipped type=\"org.opentest4j.TestAbortedException\"><![CDATA[org.opentest4j.TestAbortedException:"
                        + " Assumption failed: assumption is not true\n]]></skipped>");
        assertThat(run()).isEqualTo(1);
    }

    @Test
    void aSkipWithoutAReasonFails() throws Exception {
        report("a", "<skipped message=\"Assumption failed: kubectl is not on the PATH (...)\"/>");
        report("b", "<skipped message=\"Assumption failed: assumption is not true\"/>");
        assertThat(run()).isEqualTo(1);
    }

    @Test
    void anEmptyMessageOrNoReportFails() throws Exception {
        assertThat(run()).as("no report").isEqualTo(1);
        report("c", "<skipped/>");
        assertThat(run()).isEqualTo(1);
    }

    private void report(String module, String skipped) throws Exception {
        Path dir = Files.createDirectories(root.resolve(module).resolve("target/surefire-reports"));
        Files.writeString(
                dir.resolve("TEST-x." + module + ".xml"),
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"x\" tests=\"2\" skipped=\"1\">"
                        + "<testcase name=\"ran\" classname=\"x.T\"/>"
                        + "<testcase name=\"skipped\" classname=\"x.T\">" + skipped + "</testcase></testsuite>\n",
                StandardCharsets.UTF_8);
    }

    private int run() throws Exception {
        Process p = new ProcessBuilder(
                        "python3", RepoFiles.path(".ci/check-skips.py").toString(), root.toString())
                .redirectErrorStream(true)
                .redirectOutput(root.resolve("out.txt").toFile())
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }
}
