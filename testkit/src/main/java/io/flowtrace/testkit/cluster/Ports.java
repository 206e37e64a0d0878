package io.flowtrace.testkit.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A free TCP port on 127.0.0.1 (free when asked: the caller binds it soon after, so another local user
 * can take it in between). Only for servers that cannot bind port 0 themselves and be read back: the
 * KRaft controller ({@code controller.quorum.voters} names it first), ZooKeeper (its
 * {@code clientPortAddress} refuses 0), Flink's REST (the CLI reads {@code rest.port} from config.yaml)
 * and PostgreSQL. Each proves itself to its clients, so a squatter that wins the race gets a failed start
 * or a refused client, not a secret: the run's TLS key (Kafka's controller, Flink), DIGEST-MD5's server
 * proof (ZooKeeper), SCRAM (PostgreSQL). Kafka's client listener binds 0 ({@link KafkaServer}).
 */
final class Ports {
    private Ports() {}

    static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
