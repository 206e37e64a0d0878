package io.flowtrace.core.net;

import java.util.Objects;

/**
 * Where packets were seen: the agent (one host) and the interface it captured on. Flows, events and
 * windows are keyed and reported per vantage point, because two capture points of one connection see
 * different things (docs/schemas.md, "Vantage"). Its text form {@code agent/interface} is written
 * here ({@link #toString()}, {@link #text}) and read here ({@link #parse}), nowhere else.
 */
public record VantagePoint(String agentId, String interfaceName) {

    public VantagePoint {
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(interfaceName, "interfaceName");
    }

    /** The text form of a vantage point without building one: {@code agent/interface}. */
    public static String text(String agentId, String interfaceName) {
        return agentId + "/" + interfaceName;
    }

    /**
     * The vantage point of its text form. Split at the last slash: Linux interface names cannot
     * contain one (dev_valid_name), agent ids (host names, user-given ids) might.
     *
     * @throws IllegalArgumentException when the text has no slash
     */
    public static VantagePoint parse(String text) {
        int slash = text.lastIndexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("vantage '" + text + "' is not agent/interface");
        }
        return new VantagePoint(text.substring(0, slash), text.substring(slash + 1));
    }

    /** {@code agent/interface}: the vantage column of every table and the first part of a {@link FlowKey}. */
    @Override
    public String toString() {
        return text(agentId, interfaceName);
    }
}
