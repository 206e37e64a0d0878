package io.flowtrace.bench.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What the scale probe reads from a running job's Flink REST API: the latest completed checkpoint,
 * the records a vertex has read and its busy and back-pressured time per second (the subtasks'
 * maximum). Field names as the REST API documents them (CheckpointingStatistics, JobDetailsInfo,
 * AggregatedSubtaskMetricsHeaders).
 */
final class FlinkRest {
    /** The latest completed checkpoint; id -1 when none completed yet. Sizes in bytes, duration in ms. */
    record Checkpoint(long id, long stateSize, long checkpointedSize, long durationMs, long completed, long failed) {}

    /** A vertex's records read so far (sum of its subtasks) and its busiest subtask's ms/s busy and back-pressured. */
    record Vertex(long recordsIn, double busyMsPerS, double backPressuredMsPerS) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String job;

    FlinkRest(int port, String jobId) {
        this.job = "http://localhost:" + port + "/jobs/" + jobId;
    }

    Checkpoint latestCheckpoint() throws IOException, InterruptedException {
        JsonNode root = get(job + "/checkpoints");
        JsonNode c = root.path("latest").path("completed");
        JsonNode counts = root.path("counts");
        if (!c.hasNonNull("id")) {
            return new Checkpoint(
                    -1,
                    -1,
                    -1,
                    -1,
                    counts.path("completed").asLong(),
                    counts.path("failed").asLong());
        }
        return new Checkpoint(
                c.path("id").asLong(),
                c.path("state_size").asLong(),
                c.path("checkpointed_size").asLong(),
                c.path("end_to_end_duration").asLong(),
                counts.path("completed").asLong(),
                counts.path("failed").asLong());
    }

    /** The first vertex whose name contains {@code name} (chained operators share one vertex). */
    Vertex vertex(String name) throws IOException, InterruptedException {
        for (JsonNode v : get(job).path("vertices")) {
            if (v.path("name").asText().contains(name)) {
                long in = v.path("metrics").path("read-records").asLong();
                double busy = -1;
                double backPressured = -1;
                JsonNode metrics = get(job + "/vertices/" + v.path("id").asText()
                        + "/subtasks/metrics?get=busyTimeMsPerSecond,backPressuredTimeMsPerSecond");
                for (JsonNode m : metrics) {
                    if (m.path("id").asText().equals("busyTimeMsPerSecond")) {
                        busy = m.path("max").asDouble(-1);
                    } else if (m.path("id").asText().equals("backPressuredTimeMsPerSecond")) {
                        backPressured = m.path("max").asDouble(-1);
                    }
                }
                return new Vertex(in, busy, backPressured);
            }
        }
        throw new IllegalStateException("no vertex named like '" + name + "' in " + job);
    }

    private JsonNode get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }
}
