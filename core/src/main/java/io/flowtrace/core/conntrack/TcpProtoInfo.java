package io.flowtrace.core.conntrack;

/**
 * CTA_PROTOINFO_TCP as tcp_to_nlattr() (nf_conntrack_proto_tcp.c) writes it. On DESTROY the kernel
 * passes destroy=true and writes only the state, so the other fields are -1 there.
 * Flags and masks are the two bytes of struct nf_ct_tcp_flags.
 */
public record TcpProtoInfo(
        int state, int wscaleOrig, int wscaleReply, int flagsOrig, int maskOrig, int flagsReply, int maskReply) {

    public static final int ABSENT = -1;

    public static TcpProtoInfo stateOnly(int state) {
        return new TcpProtoInfo(state, ABSENT, ABSENT, ABSENT, ABSENT, ABSENT, ABSENT);
    }

    public boolean isStateOnly() {
        return wscaleOrig == ABSENT && flagsOrig == ABSENT;
    }

    /** enum tcp_conntrack (include/uapi/linux/netfilter/nf_conntrack_tcp.h), as conntrack(8) prints it. */
    public static final String[] STATE_NAMES = {
        "NONE",
        "SYN_SENT",
        "SYN_RECV",
        "ESTABLISHED",
        "FIN_WAIT",
        "CLOSE_WAIT",
        "LAST_ACK",
        "TIME_WAIT",
        "CLOSE",
        "SYN_SENT2"
    };

    public static int stateNumber(String name) {
        for (int i = 0; i < STATE_NAMES.length; i++) {
            if (STATE_NAMES[i].equals(name)) {
                return i;
            }
        }
        return ABSENT;
    }
}
