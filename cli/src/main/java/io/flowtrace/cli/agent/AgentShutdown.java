package io.flowtrace.cli.agent;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM/SIGINT for the agents: a JVM shutdown hook that tells the agent to stop reading, then
 * holds the JVM until the agent has flushed its producer and spool ({@link #close()}), for at most
 * the publisher's shutdown timeout plus 15 s (docs/agent.md, no-loss reasoning). The JVM then
 * exits 143 (128 + SIGTERM), unless the agent ended with a status that says records were not
 * delivered ({@link #exitStatus}): that status is the exit status, so a supervisor that takes 143
 * as success still learns that records are left in the spool or were dropped.
 */
public final class AgentShutdown implements AutoCloseable {
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook;
    private volatile int status;

    private AgentShutdown(Runnable stopReading, long shutdownTimeoutSeconds) {
        hook = new Thread(
                () -> {
                    stopReading.run();
                    try {
                        done.await(shutdownTimeoutSeconds + 15, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (status != AgentExit.OK) {
                        // System.exit cannot change the status once the JVM is shutting down; halt can.
                        // Our output is written and flushed by now (the agent's summary comes before close()).
                        System.err.flush();
                        Runtime.getRuntime().halt(status);
                    }
                },
                "flowtrace-shutdown");
    }

    /** The agent's exit status, for the hook when the JVM is already shutting down (SIGTERM). */
    int exitStatus(int exitStatus) {
        this.status = exitStatus;
        return exitStatus;
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
