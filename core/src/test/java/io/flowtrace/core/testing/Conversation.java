package io.flowtrace.core.testing;

import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.function.Consumer;

/**
 * Writes a TCP conversation packet by packet, the way one reads a trace: who sent it, when (µs),
 * sequence and ACK numbers (raw 32-bit), flags, payload. Each packet is handed to a consumer as a
 * {@link DecodedPacket}, so analyser tests state their inputs and expected outputs by hand.
 */
public final class Conversation {
    public static final byte[] CLIENT = {10, 0, 0, 1};
    public static final byte[] SERVER = {10, 0, 0, 2};
    public static final int CLIENT_PORT = 40000;
    public static final int SERVER_PORT = 5201;

    private final Consumer<DecodedPacket> sink;
    private final DecodedPacket p = new DecodedPacket();
    private int ipId = 1;

    public Conversation(Consumer<DecodedPacket> sink) {
        this.sink = sink;
    }

    /** A packet under construction; {@link #send()} hands it over. */
    public final class Packet {
        private Packet(boolean fromClient, long micros) {
            p.status = DecodeStatus.TCP;
            p.timestampNanos = micros * 1000;
            p.interfaceId = 0;
            p.ipVersion = 4;
            p.addrLength = 4;
            System.arraycopy(fromClient ? CLIENT : SERVER, 0, p.srcAddr, 0, 4);
            System.arraycopy(fromClient ? SERVER : CLIENT, 0, p.dstAddr, 0, 4);
            p.srcPort = fromClient ? CLIENT_PORT : SERVER_PORT;
            p.dstPort = fromClient ? SERVER_PORT : CLIENT_PORT;
            p.ipId = ipId++;
            p.ttl = 64;
            p.seq = 0;
            p.ack = 0;
            p.flags = 0;
            p.window = 1000;
            p.payloadLength = 0;
            p.mss = -1;
            p.windowScale = -1;
            p.sackPermitted = false;
            p.sackCount = 0;
            p.tsVal = -1;
            p.tsEcr = -1;
            p.truncation = 0;
            p.badOptions = false;
        }

        public Packet seq(long seq) {
            p.seq = seq & 0xffffffffL;
            return this;
        }

        public Packet ack(long ack) {
            p.ack = ack & 0xffffffffL;
            p.flags |= DecodedPacket.ACK;
            return this;
        }

        public Packet flags(int flags) {
            p.flags |= flags;
            return this;
        }

        public Packet len(int len) {
            p.payloadLength = len;
            return this;
        }

        public Packet window(int window) {
            p.window = window;
            return this;
        }

        public Packet ipId(int id) {
            p.ipId = id;
            return this;
        }

        public Packet mss(int mss) {
            p.mss = mss;
            return this;
        }

        public Packet wscale(int shift) {
            p.windowScale = shift;
            return this;
        }

        public Packet sack(long left, long right) {
            p.sackLeft[p.sackCount] = left & 0xffffffffL;
            p.sackRight[p.sackCount] = right & 0xffffffffL;
            p.sackCount++;
            return this;
        }

        public Packet ts(long val, long ecr) {
            p.tsVal = val;
            p.tsEcr = ecr;
            return this;
        }

        public void send() {
            sink.accept(p);
        }
    }

    public Packet client(long micros) {
        return new Packet(true, micros);
    }

    public Packet server(long micros) {
        return new Packet(false, micros);
    }

    /** SYN at t, SYN-ACK at t+rtt, ACK at t+rtt+1; client ISN cIsn, server ISN sIsn. */
    public void handshake(long micros, long rttMicros, long cIsn, long sIsn) {
        client(micros).seq(cIsn).flags(DecodedPacket.SYN).mss(1460).wscale(7).send();
        server(micros + rttMicros)
                .seq(sIsn)
                .ack(cIsn + 1)
                .flags(DecodedPacket.SYN)
                .mss(1460)
                .wscale(7)
                .send();
        client(micros + rttMicros + 1).seq(cIsn + 1).ack(sIsn + 1).send();
    }
}
