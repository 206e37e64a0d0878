package io.flowtrace.demo;

import java.nio.file.Path;

/**
 * A capture the demo replays: the file and the agent id its packets are published under (the
 * vantage is {@code agentId/if<N>}, as {@code flowtrace analyze --agent-id agentId} names it).
 */
public record Capture(Path file, String agentId, String what) {}
