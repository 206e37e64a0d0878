package io.flowtrace.core.openvpn;

/**
 * OpenVPN packet opcodes: the high 5 bits of the first byte, the key id being the low 3
 * (src/openvpn/ssl_pkt.h, OpenVPN 2.6: P_OPCODE_SHIFT 3, P_KEY_ID_MASK 0x07).
 */
public final class OpenVpnOpcode {
    public static final int HARD_RESET_CLIENT_V1 = 1;
    public static final int HARD_RESET_SERVER_V1 = 2;
    public static final int SOFT_RESET_V1 = 3;
    public static final int CONTROL_V1 = 4;
    public static final int ACK_V1 = 5;
    public static final int DATA_V1 = 6;
    public static final int HARD_RESET_CLIENT_V2 = 7;
    public static final int HARD_RESET_SERVER_V2 = 8;
    public static final int DATA_V2 = 9;
    /** tls-crypt-v2: the client's reset carries its wrapped key. */
    public static final int HARD_RESET_CLIENT_V3 = 10;
    /** tls-crypt-v2: a control packet with the wrapped client key appended. */
    public static final int CONTROL_WKC_V1 = 11;

    private OpenVpnOpcode() {}

    public static boolean isData(int op) {
        return op == DATA_V1 || op == DATA_V2;
    }

    /** Opcodes of the reliability layer that carry a message packet-id (all but ACK and data). */
    public static boolean isReliableControl(int op) {
        return op == HARD_RESET_CLIENT_V1
                || op == HARD_RESET_SERVER_V1
                || op == SOFT_RESET_V1
                || op == CONTROL_V1
                || op == HARD_RESET_CLIENT_V2
                || op == HARD_RESET_SERVER_V2
                || op == HARD_RESET_CLIENT_V3
                || op == CONTROL_WKC_V1;
    }

    public static boolean isClientReset(int op) {
        return op == HARD_RESET_CLIENT_V1 || op == HARD_RESET_CLIENT_V2 || op == HARD_RESET_CLIENT_V3;
    }

    public static boolean isServerReset(int op) {
        return op == HARD_RESET_SERVER_V1 || op == HARD_RESET_SERVER_V2;
    }

    /** The name OpenVPN's packet_opcode_name() prints (ssl_pkt.h). */
    public static String name(int op) {
        return switch (op) {
            case HARD_RESET_CLIENT_V1 -> "P_CONTROL_HARD_RESET_CLIENT_V1";
            case HARD_RESET_SERVER_V1 -> "P_CONTROL_HARD_RESET_SERVER_V1";
            case SOFT_RESET_V1 -> "P_CONTROL_SOFT_RESET_V1";
            case CONTROL_V1 -> "P_CONTROL_V1";
            case ACK_V1 -> "P_ACK_V1";
            case DATA_V1 -> "P_DATA_V1";
            case HARD_RESET_CLIENT_V2 -> "P_CONTROL_HARD_RESET_CLIENT_V2";
            case HARD_RESET_SERVER_V2 -> "P_CONTROL_HARD_RESET_SERVER_V2";
            case DATA_V2 -> "P_DATA_V2";
            case HARD_RESET_CLIENT_V3 -> "P_CONTROL_HARD_RESET_CLIENT_V3";
            case CONTROL_WKC_V1 -> "P_CONTROL_WKC_V1";
            default -> "P_???";
        };
    }
}
