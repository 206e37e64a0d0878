package io.flowtrace.agent.conntrack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.os.LibC;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.EventType;
import io.flowtrace.core.conntrack.NetlinkSizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Opens a real ctnetlink socket inside a namespace of its own (ftct-it-PID): needs root, iproute2 and
 * conntrack(8); skipped otherwise. The reading thread joins the namespace with setns(CLONE_NEWNET),
 * so the socket belongs to it; entries are made with conntrack -I / -D there.
 */
class CtnetlinkSourceITCase {
    private final String ns = "ftct-it-" + ProcessHandle.current().pid();
    private final ExecutorService reader = Executors.newSingleThreadExecutor();

    @BeforeEach
    void namespace() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/conntrack")), "needs conntrack(8)");
        assumeTrue(sh("ip", "netns", "add", ns) == 0, "cannot create a network namespace");
    }

    @AfterEach
    void cleanup() throws Exception {
        reader.shutdownNow();
        sh("ip", "netns", "del", ns);
    }

    @Test
    void receivesNewAndDestroyWithTheirExactWireSize() throws Exception {
        List<ConntrackMessage> got = new CopyOnWriteArrayList<>();
        // open() binds the socket to the event groups: events made after it returns reach the socket.
        java.util.concurrent.CountDownLatch subscribed = new java.util.concurrent.CountDownLatch(1);
        Future<Long> run = reader.submit(() -> {
            int fd = LibC.INSTANCE.open("/var/run/netns/" + ns, LibC.O_RDONLY | LibC.O_CLOEXEC);
            try {
                LibC.INSTANCE.setns(fd, LibC.CLONE_NEWNET);
            } finally {
                LibC.INSTANCE.close(fd);
            }
            try (CtnetlinkSource src = CtnetlinkSource.open(1 << 20, CtnetlinkSource.GROUPS_NEW_UPDATE_DESTROY)) {
                subscribed.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                src.run(got::add, () -> got.size() < 2 && System.nanoTime() < deadline);
                return src.enobufs();
            }
        });
        if (!subscribed.await(10, TimeUnit.SECONDS)) {
            run.get(1, TimeUnit.SECONDS); // open() failed: its exception says why
            throw new AssertionError("the ctnetlink socket was not open after 10 s");
        }
        assertThat(sh(
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        "conntrack",
                        "-I",
                        "-p",
                        "udp",
                        "-s",
                        "10.9.9.1",
                        "-d",
                        "10.9.9.2",
                        "--sport",
                        "1111",
                        "--dport",
                        "2222",
                        "-t",
                        "30"))
                .isZero();
        assertThat(sh("ip", "netns", "exec", ns, "conntrack", "-D", "-p", "udp", "-s", "10.9.9.1"))
                .isZero();
        assertThat(run.get(15, TimeUnit.SECONDS)).isZero();
        assertThat(got).extracting(ConntrackMessage::type).containsExactly(EventType.NEW, EventType.DESTROY);
        assertThat(got.get(0).orig().srcPort()).isEqualTo(1111);
        NetlinkSizer sizer = new NetlinkSizer();
        for (ConntrackMessage e : got) {
            assertThat(sizer.exactSize(e)).isEqualTo(e.wireSize());
        }
    }

    private static int sh(String... cmd) throws IOException, InterruptedException {
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor();
    }
}
