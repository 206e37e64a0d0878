package io.flowtrace.agent.packets;

import com.sun.jna.LastErrorException;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.os.LibC;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code tcpdump -i IF -s SNAPLEN --immediate-mode -U -w - [-y LINUX_SLL2] [-- FILTER]} (the link type
 * on {@code -i any} only) and publishes what it writes; restarts it
 * with exponential backoff (1 s doubling to 60 s, reset after a run of 60 s) when it dies. tcpdump's
 * own statistics ("N packets captured / received by filter / dropped by kernel", printed on exit and
 * on SIGUSR1) are parsed from its stderr and exposed as source counters, summed over restarts. While
 * it captures, tcpdump is sent SIGUSR1 every stats interval so the kernel's drop count is live, not
 * only known at exit. The signal goes to the process started, so a {@code --tcpdump} wrapper script
 * must {@code exec} tcpdump.
 */
public final class TcpdumpSupervisor {
    private static final Logger LOG = LoggerFactory.getLogger(TcpdumpSupervisor.class);
    private static final Pattern STAT =
            Pattern.compile("(\\d+) packets? (captured|received by filter|dropped by kernel)");
    private static final long MAX_BACKOFF_MS = 60_000;
    /** Linux's pseudo-device of every interface. */
    private static final String ANY = "any";

    public static final String CAPTURED = "tcpdump_packets_captured";
    public static final String RECEIVED = "tcpdump_packets_received_by_filter";
    public static final String DROPPED = "tcpdump_packets_dropped_by_kernel";
    public static final String RESTARTS = "tcpdump_restarts";

    private final String tcpdump;
    private final String iface;
    private final int snaplen;
    private final String filter;
    private final AgentMetrics metrics;
    private final long statsIntervalMs;
    private final TcpdumpStats finished = new TcpdumpStats();
    private volatile Process current;
    private volatile boolean stopping;

    /** @param statsIntervalMs how often tcpdump is asked for its statistics (SIGUSR1); 0: only at exit */
    public TcpdumpSupervisor(
            String tcpdump, String iface, int snaplen, String filter, AgentMetrics metrics, long statsIntervalMs) {
        this.tcpdump = tcpdump;
        this.iface = iface;
        this.snaplen = snaplen;
        this.filter = filter;
        this.metrics = metrics;
        this.statsIntervalMs = statsIntervalMs;
        metrics.sourceCounter(RESTARTS, 0);
    }

    public List<String> command() {
        // --immediate-mode: without it TPACKET_V3 hands packets over in blocks (up to 1 s late), and
        // what sits in the ring when tcpdump gets SIGTERM is never written ("N received by filter"
        // but fewer "captured"). -U: write each packet as it comes.
        List<String> cmd = new ArrayList<>(
                List.of(tcpdump, "-i", iface, "-s", String.valueOf(snaplen), "--immediate-mode", "-U", "-w", "-"));
        if (ANY.equals(iface)) {
            // Linux's "any" captures a packet once on every interface it crosses (a pod's veth, then the
            // bridge). Cooked v2 (libpcap >= 1.10) carries the interface index of each copy, which core's
            // reader makes the interface id: each interface its own vantage (InterfaceNames). The
            // default cooked v1 header has none, and the copies would be duplicates in one flow.
            cmd.addAll(List.of("-y", "LINUX_SLL2"));
        }
        if (filter != null && !filter.isBlank()) {
            cmd.add("--"); // the end of the options: a filter that starts with '-' stays a filter (getopt)
            cmd.add(filter);
        }
        return cmd;
    }

    /** Captures until {@code stop} says so or {@link #stop()} is called; returns the statistics. */
    public TcpdumpStats run(CapturePublisher publisher, BooleanSupplier stop) throws IOException, InterruptedException {
        long backoffMs = 1000;
        while (!stopping && !stop.getAsBoolean()) {
            long started = System.nanoTime();
            int exit = runOnce(publisher, () -> stopping || stop.getAsBoolean());
            if (stopping || stop.getAsBoolean()) {
                break;
            }
            if (System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(MAX_BACKOFF_MS)) {
                backoffMs = 1000;
            }
            metrics.addSourceCounter(RESTARTS, 1);
            LOG.warn("tcpdump on {} exited with status {}; restarting in {} ms", iface, exit, backoffMs);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
            while (!stopping && !stop.getAsBoolean() && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
        }
        return finished.copy();
    }

    /**
     * Asks tcpdump to finish (SIGTERM): it flushes its output and prints its statistics, which are
     * then read to the end. Not {@code Process.destroy()}: that also closes our end of its pipes and
     * would lose both.
     */
    public void stop() {
        stopping = true;
        Process p = current;
        if (p != null) {
            p.toHandle().destroy();
        }
    }

    private int runOnce(CapturePublisher publisher, BooleanSupplier stop) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command()).start();
        } catch (IOException e) {
            LOG.error("cannot start {}: {}", command(), e.getMessage());
            return -1;
        }
        current = p;
        if (stopping) {
            p.toHandle().destroy();
        }
        TcpdumpStats run = new TcpdumpStats();
        Thread stderr = new Thread(() -> readStderr(p.getErrorStream(), run), "tcpdump-stderr-" + iface);
        stderr.setDaemon(true);
        stderr.start();
        Thread statsRequests = null;
        try (InputStream out = p.getInputStream()) {
            CaptureReader reader = CaptureReader.open(out, publisher);
            // tcpdump wrote its file header: it is capturing and handles SIGUSR1 from here on.
            statsRequests = startStatsRequests(p);
            // Read to the end even when stopping: tcpdump writes what it captured before it exits.
            publisher.publishAll(reader, ReplayPacer.UNPACED, () -> false);
        } catch (CaptureFormatException e) {
            if (!stopping) {
                LOG.warn("tcpdump on {} wrote no readable capture: {}", iface, e.getMessage());
            }
        } finally {
            if (statsRequests != null) {
                statsRequests.interrupt();
            }
            if (stop.getAsBoolean()) {
                p.toHandle().destroy();
            }
        }
        int exit = p.waitFor();
        stderr.join(2000);
        current = null;
        synchronized (finished) {
            finished.add(run);
            publishCounters(finished, new TcpdumpStats());
        }
        return exit;
    }

    /** A daemon thread sending SIGUSR1 to {@code p} every stats interval until interrupted; null if off. */
    private Thread startStatsRequests(Process p) {
        if (statsIntervalMs <= 0) {
            return null;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        while (true) {
                            Thread.sleep(statsIntervalMs);
                            if (!p.isAlive()) {
                                return;
                            }
                            LibC.INSTANCE.kill((int) p.pid(), LibC.SIGUSR1);
                        }
                    } catch (InterruptedException e) {
                        // the run is over
                    } catch (LastErrorException | UnsatisfiedLinkError e) {
                        LOG.warn(
                                "cannot ask tcpdump (pid {}) for its statistics: {}; they are known at its exit only",
                                p.pid(),
                                e.toString());
                    }
                },
                "tcpdump-stats-" + iface);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void readStderr(InputStream err, TcpdumpStats run) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(err, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                boolean stats;
                synchronized (finished) {
                    stats = run.parse(line);
                    if (stats) {
                        publishCounters(finished, run); // live: earlier runs plus this run's latest report
                    }
                }
                if (!stats) {
                    LOG.info("tcpdump: {}", line);
                }
            }
        } catch (IOException e) {
            LOG.warn("reading tcpdump's stderr: {}", e.toString());
        }
    }

    private void publishCounters(TcpdumpStats earlierRuns, TcpdumpStats current) {
        metrics.sourceCounter(CAPTURED, earlierRuns.captured + current.captured);
        metrics.sourceCounter(RECEIVED, earlierRuns.receivedByFilter + current.receivedByFilter);
        metrics.sourceCounter(DROPPED, earlierRuns.droppedByKernel + current.droppedByKernel);
    }

    /** tcpdump's statistics of one run (the last report it printed) or summed over runs. */
    public static final class TcpdumpStats {
        public long captured;
        public long receivedByFilter;
        public long droppedByKernel;

        /** Takes the numbers from one stderr line; false if the line has none. */
        public boolean parse(String line) {
            Matcher m = STAT.matcher(line);
            boolean any = false;
            while (m.find()) {
                any = true;
                long v = Long.parseLong(m.group(1));
                switch (m.group(2)) {
                    case "captured" -> captured = v;
                    case "received by filter" -> receivedByFilter = v;
                    default -> droppedByKernel = v;
                }
            }
            return any;
        }

        void add(TcpdumpStats o) {
            captured += o.captured;
            receivedByFilter += o.receivedByFilter;
            droppedByKernel += o.droppedByKernel;
        }

        TcpdumpStats copy() {
            TcpdumpStats c = new TcpdumpStats();
            c.add(this);
            return c;
        }
    }
}
