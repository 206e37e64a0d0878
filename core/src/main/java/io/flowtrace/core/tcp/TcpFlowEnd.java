package io.flowtrace.core.tcp;

/** How a flow instance ended (the {@code end} field of the JSON contract). */
public enum TcpFlowEnd {
    FIN,
    RST,
    IDLE,
    OPEN;

    public String jsonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
