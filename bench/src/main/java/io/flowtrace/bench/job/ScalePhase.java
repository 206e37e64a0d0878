package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;

/**
 * (5) The scale probe: {@code --scale-flows} concurrent open flows (idle flows as in (4): the first
 * packets of every connection, no FIN/RST, the same capture times so no timer fires) held by the
 * unbounded job, RocksDB state, parallelism 2, a checkpoint every 2 s (full, not incremental). Once
 * the consumer group has committed every offset, the next completed checkpoint (so it holds every
 * flow) as Flink's REST API reports it: state size, checkpointed size, end-to-end duration; cost per
 * flow = state size / flows; and the JVM heap in use after a GC (MiniCluster, broker and database
 * share this JVM: read it as an upper bound).
 */
final class ScalePhase {
    private static final Pattern COMPLETED = Pattern.compile("\"latest\":\\{\"completed\":\\{[^{}]*?\"id\":(\\d+)");

    private final JobBenchContext bench;
    private final StatePhase state;

    ScalePhase(JobBenchContext bench, StatePhase state) {
        this.bench = bench;
        this.state = state;
    }

    void run(long targetFlows) throws Exception {
        String load = JobBenchContext.load();
        Map<String, Integer> perFlow = new HashMap<>();
        List<PacketEvent> idle = state.idlePackets(perFlow);
        int copies = (int) ((targetFlows + perFlow.size() - 1) / perFlow.size());
        long flows = (long) copies * perFlow.size();
        String topic = bench.newTopic("bench.scale");
        long t0 = System.nanoTime();
        long published = state.publishCopies(topic, idle, copies, new DecodedPacket());
        report(
                "  scale: published %,d packets of %,d idle flows in %.1f s",
                published, flows, (System.nanoTime() - t0) / 1e9);
        String run = "scale-" + bench.nextSeq();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Configuration flink = new Configuration();
        flink.set(RestOptions.PORT, port);
        JobClient job = StatePhase.startWithoutSinks(state.idleJobOptions(topic, run, "rocksdb"), flink, run);
        long t1 = System.nanoTime();
        state.waitForCommitted(topic, "bench-" + run, published);
        double consumed = (System.nanoTime() - t1) / 1e9;
        String url = "http://localhost:" + port + "/jobs/" + job.getJobID() + "/checkpoints";
        long after = completedId(get(url));
        String completed = null;
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline) {
            String json = get(url);
            if (completedId(json) > after) {
                completed = json.substring(json.indexOf("\"latest\":{\"completed\":{"));
                break;
            }
            Thread.sleep(500);
        }
        System.gc();
        long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        job.cancel().get();
        if (completed == null) {
            report("(5) scale: no checkpoint completed within 10 min after the input was consumed");
            return;
        }
        long stateSize = field(completed, "state_size");
        report(
                "(5) scale: %,d concurrent idle flows (%,d packets, consumed in %.1f s), RocksDB, parallelism 2: "
                        + "checkpoint state %,d bytes (checkpointed %,d), end-to-end %,d ms; %.0f bytes per flow in the "
                        + "checkpoint; JVM heap in use after GC %,d MiB (%.0f bytes per flow, upper bound); load %s -> %s",
                flows,
                published,
                consumed,
                stateSize,
                field(completed, "checkpointed_size"),
                field(completed, "end_to_end_duration"),
                stateSize / (double) flows,
                heap >> 20,
                heap / (double) flows,
                load,
                JobBenchContext.load());
    }

    private static long completedId(String json) {
        Matcher m = COMPLETED.matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static long field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
