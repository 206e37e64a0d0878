package io.flowtrace.core.tcp;

import java.util.Locale;

/** How a flow instance ended (the {@code end} field of the JSON contract). */
public enum TcpFlowEnd {
    FIN,
    RST,
    IDLE,
    OPEN;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
