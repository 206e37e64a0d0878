package io.flowtrace.bench.job;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of this JVM's threads by name, for the scale probe's cost per record: the flow function's
 * task threads (Java threads, {@link ThreadMXBean}, ns) and RocksDB's own flush and compaction
 * threads (native, named {@code rocksdb:low} and {@code rocksdb:high}: {@code /proc/self/task/N/stat}
 * utime + stime, in the kernel's USER_HZ ticks of 10 ms).
 */
final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ThreadCpu() {}

    /** CPU ns used so far by the live Java threads whose name starts with {@code prefix}. */
    static long javaThreadsNs(String prefix) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                long ns = THREADS.getThreadCpuTime(t.getId());
                sum += Math.max(ns, 0);
            }
        }
        return sum;
    }

    /** CPU ns used so far by the live threads (native included) whose kernel name starts with {@code prefix}. */
    static long nativeThreadsNs(String prefix) {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (!Files.readString(task.resolve("comm")).startsWith(prefix)) {
                        continue;
                    }
                    String stat = Files.readString(task.resolve("stat"));
                    // fields after the ")" that closes the name: state is field 3, utime 14, stime 15
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * NANOS_PER_TICK;
    }
}
