package io.flowtrace.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM/SIGINT for the agents: a JVM shutdown hook that tells the agent to stop reading, then
 * holds the JVM until the agent has flushed its producer and spool ({@link #close()}), for at most
 * the publisher's shutdown timeout plus 15 s (docs/agent.md, no-loss reasoning).
 */
final class AgentShutdown implements AutoCloseable {
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook;

    private AgentShutdown(Runnable stopReading, long shutdownTimeoutSeconds) {
        hook = new Thread(
                () -> {
                    stopReading.run();
                    try {
                        done.await(shutdownTimeoutSeconds + 15, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "flowtrace-shutdown");
    }

    static AgentShutdown install(Runnable stopReading, long shutdownTimeoutSeconds) {
        AgentShutdown s = new AgentShutdown(stopReading, shutdownTimeoutSeconds);
        Runtime.getRuntime().addShutdownHook(s.hook);
        return s;
    }

    /** The agent has flushed: a running hook may let the JVM end; otherwise the hook is removed. */
    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down (SIGTERM): the hook is running and waits for us.
        }
    }
}
