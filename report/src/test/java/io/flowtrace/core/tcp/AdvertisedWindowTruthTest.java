package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.Tsv;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * {@code window.min_bytes}, {@code window.max_bytes} and {@code window.scale} against tshark on every
 * committed capture of testdata/tcp, both vantages: testdata/tcp/windows.tshark.tsv holds, per
 * capture and sending side, the smallest and largest {@code tcp.window_size} (the header field times
 * the scale factor tshark took from the handshake) and the scale tshark applied, over the packets
 * that side sent except resets; made by scripts/lab/window_truth.sh, whose header gives the tshark
 * command. midstream.sender.pcap.gz (frames 2000-3999 of cubic-loss.sender, cut with tshark) has no
 * handshake: tshark then reports the unscaled field and an unknown scale, and so must flowtrace.
 */
class AdvertisedWindowTruthTest {

    @Test
    void windowFiguresEqualTsharksOnEveryCommittedCaptureAtBothVantages() throws Exception {
        Map<String, CaptureRun> runs = new HashMap<>();
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        int unscaled = 0;
        int zero = 0;
        List<String> vantages = new ArrayList<>();
        for (Map<String, String> t : Tsv.read(TestData.file("tcp/windows.tshark.tsv"))) {
            String capture = t.get("capture");
            CaptureRun run = runs.get(capture);
            if (run == null) {
                run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
                runs.put(capture, run);
            }
            String src = t.get("src");
            String dst = t.get("dst");
            String side = run.flows.containsKey(src) ? "c2s" : run.flows.containsKey(dst) ? "s2c" : null;
            String client = side == null ? null : side.equals("c2s") ? src : dst;
            if (client == null || run.flows.keySet().stream().anyMatch(k -> k.startsWith(client + "#"))) {
                continue; // not a flow, or port reuse: the tshark line spans several instances
            }
            Map<String, Object> flow = run.flows.get(client);
            String at = capture + " " + src + " (" + side + ")";
            long scale = Long.parseLong(t.get("scale"));
            soft.assertThat(flow.get(side + ".window.min_bytes"))
                    .as("%s window.min_bytes", at)
                    .isEqualTo(Long.parseLong(t.get("window_min")));
            soft.assertThat(flow.get(side + ".window.max_bytes"))
                    .as("%s window.max_bytes", at)
                    .isEqualTo(Long.parseLong(t.get("window_max")));
            soft.assertThat(flow.get(side + ".window.scale"))
                    .as("%s window.scale", at)
                    .isEqualTo(scale);
            compared++;
            unscaled += scale < 0 ? 1 : 0;
            zero += t.get("window_min").equals("0") ? 1 : 0;
            String vantage = capture.substring(capture.lastIndexOf('.') + 1);
            if (!vantages.contains(vantage)) {
                vantages.add(vantage);
            }
        }
        soft.assertAll();
        assertThat(compared).as("sides compared").isGreaterThan(100);
        assertThat(vantages).containsExactlyInAnyOrder("sender", "receiver");
        assertThat(unscaled).as("sides without a handshake (midstream)").isGreaterThanOrEqualTo(2);
        assertThat(zero).as("sides that advertised a zero window").isPositive();
    }
}
