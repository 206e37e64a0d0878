package io.flowtrace.core.openvpn;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes an {@link OpenVpnFlow} (its sessions and both directions of each, per-packet-id state
 * included) to bytes and back, so a streaming job can keep it in keyed state and resume the
 * analysis exactly where it stopped: feeding the rest of a capture to a restored flow gives the
 * same sessions as feeding it all to one. Versioned like the TCP analyser's state; plain
 * {@code DataOutput} fields, no reflection.
 */
public final class OpenVpnFlowCodec {
    /**
     * 3: each direction's runs and tls-crypt control lengths for the inferred retransmissions;
     * 2: each session's wrapping and transport, each direction's TCP retransmissions. 1 and 2 are
     * still read (without the runs: a restored tls-crypt flow infers from its next quiet run on).
     */
    public static final int VERSION = 3;

    private static final RetransmitCause[] CAUSES = RetransmitCause.values();

    private OpenVpnFlowCodec() {}

    public static void write(OpenVpnFlow f, DataOutput out) throws IOException {
        out.writeByte(VERSION);
        out.writeUTF(f.vantage);
        out.writeUTF(f.client);
        out.writeUTF(f.server);
        out.writeInt(f.current);
        out.writeLong(f.lastSeenNanos);
        out.writeLong(f.sessionsStarted);
        out.writeBoolean(f.tcp);
        out.writeInt(f.sessions.size());
        for (OpenVpnSession s : f.sessions) {
            writeSession(s, out);
        }
    }

    public static OpenVpnFlow read(DataInput in) throws IOException {
        int version = in.readByte();
        if (version < 1 || version > VERSION) {
            throw new IOException(
                    "unknown OpenVPN flow state version " + version + " (this build reads " + VERSION + ")");
        }
        String vantage = in.readUTF();
        String client = in.readUTF();
        String server = in.readUTF();
        int current = in.readInt();
        long lastSeen = in.readLong();
        long started = in.readLong();
        boolean tcp = version >= 2 && in.readBoolean();
        int n = count(in, OpenVpnFlow.MAX_SESSIONS, "sessions");
        List<OpenVpnSession> sessions = new ArrayList<>(Math.max(1, n));
        for (int i = 0; i < n; i++) {
            sessions.add(readSession(in, version, vantage, client, server));
        }
        OpenVpnFlow f = new OpenVpnFlow(vantage, client, server, sessions);
        if (current < -1 || current >= n) {
            throw new IOException("corrupt OpenVPN flow state: current session " + current + " of " + n);
        }
        f.current = current;
        f.tcp = tcp;
        f.lastSeenNanos = lastSeen;
        f.sessionsStarted = started;
        return f;
    }

    public static byte[] toBytes(OpenVpnFlow f) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try {
            write(f, new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException("impossible: in-memory stream", e);
        }
        return bytes.toByteArray();
    }

    public static OpenVpnFlow fromBytes(byte[] state) throws IOException {
        return read(new DataInputStream(new ByteArrayInputStream(state)));
    }

    private static void writeSession(OpenVpnSession s, DataOutput out) throws IOException {
        out.writeLong(s.firstSeenNanos);
        out.writeLong(s.lastSeenNanos);
        out.writeBoolean(s.clientSessionKnown);
        out.writeLong(s.clientSessionId);
        out.writeBoolean(s.serverSessionKnown);
        out.writeLong(s.serverSessionId);
        out.writeLong(s.clientResetNanos);
        out.writeLong(s.serverResetNanos);
        out.writeLong(s.firstTlsNanos);
        out.writeLong(s.firstDataNanos);
        out.writeBoolean(s.renegotiated);
        out.writeBoolean(s.tcp);
        out.writeBoolean(s.layout != null);
        if (s.layout != null) {
            out.writeByte(s.layout.tlsAuthDigestBytes());
            out.writeBoolean(s.layout.tlsCrypt());
            out.writeBoolean(s.layout.detect());
        }
        writeDirection(s.c2s, out);
        writeDirection(s.s2c, out);
    }

    private static OpenVpnSession readSession(DataInput in, int version, String vantage, String client, String server)
            throws IOException {
        OpenVpnSession s = new OpenVpnSession(vantage, client, server, in.readLong());
        s.lastSeenNanos = in.readLong();
        s.clientSessionKnown = in.readBoolean();
        s.clientSessionId = in.readLong();
        s.serverSessionKnown = in.readBoolean();
        s.serverSessionId = in.readLong();
        s.clientResetNanos = in.readLong();
        s.serverResetNanos = in.readLong();
        s.firstTlsNanos = in.readLong();
        s.firstDataNanos = in.readLong();
        s.renegotiated = in.readBoolean();
        if (version >= 2) {
            s.tcp = in.readBoolean();
            if (in.readBoolean()) {
                // the ports are the job's, not the session's: only the wrapping is kept
                int digest = in.readByte() & 0xff;
                boolean crypt = in.readBoolean();
                boolean detect = in.readBoolean();
                try {
                    s.layout = new OpenVpnWire(new int[0], digest, crypt, detect);
                } catch (IllegalArgumentException e) {
                    throw new IOException("corrupt OpenVPN flow state: " + e.getMessage(), e);
                }
            }
        }
        readDirection(in, version, s.c2s);
        readDirection(in, version, s.s2c);
        return s;
    }

    private static void writeDirection(OpenVpnDirectionStats d, DataOutput out) throws IOException {
        out.writeInt(d.sent.size());
        for (Map.Entry<Long, OpenVpnDirectionStats.Sent> e : d.sent.entrySet()) {
            OpenVpnDirectionStats.Sent s = e.getValue();
            out.writeLong(e.getKey());
            out.writeLong(s.firstNanos);
            out.writeLong(s.lastNanos);
            out.writeInt(s.copies);
            out.writeLong(s.ackedNanos);
            out.writeInt(s.laterAcksSinceCopy);
            out.writeBoolean(s.peerResetSinceCopy);
            out.writeLong(s.lastTimerGapNanos);
            out.writeBoolean(s.carriesPayload);
        }
        out.writeLong(d.controlPackets);
        out.writeLong(d.ackOnlyPackets);
        out.writeLong(d.dataPackets);
        out.writeLong(d.opaquePackets);
        out.writeLong(d.controlPayloadBytes);
        out.writeLong(d.retransmits);
        for (long c : d.retransmitsByCause) {
            out.writeLong(c);
        }
        out.writeLong(d.duplicates);
        writeLongs(d.retransmitGapsUs, out);
        writeLongs(d.timeoutGapsUs, out);
        writeStats(d.firstTimeoutGapUs, out);
        out.writeDouble(d.backoffRatioSum);
        out.writeLong(d.backoffRatios);
        writeStats(d.ackLatencyUs, out);
        writeLongs(d.retransmitTimesNanos, out);
        out.writeInt(d.retransmitCauses.size());
        for (RetransmitCause c : d.retransmitCauses) {
            out.writeByte(c.ordinal());
        }
        out.writeLong(d.lateFirstCopies);
        out.writeLong(d.tcpRetransmits);
        out.writeLong(d.highestId);
        out.writeLong(d.lastControlWithPayloadNanos);
        out.writeLong(d.lastControlWithPayloadId);
        out.writeLong(d.lastOwnNanos);
        out.writeBoolean(d.quietRun);
        out.writeInt(d.opaqueControlNanos.size());
        for (int i = 0; i < d.opaqueControlNanos.size(); i++) {
            out.writeLong(d.opaqueControlNanos.get(i));
            out.writeInt(d.opaqueControlLengths.get(i));
        }
    }

    private static void readDirection(DataInput in, int version, OpenVpnDirectionStats d) throws IOException {
        int sent = count(in, OpenVpnDirectionStats.MAX_TRACKED_IDS, "tracked packet-ids");
        for (int i = 0; i < sent; i++) {
            long id = in.readLong();
            OpenVpnDirectionStats.Sent s = new OpenVpnDirectionStats.Sent(in.readLong());
            s.lastNanos = in.readLong();
            s.copies = in.readInt();
            s.ackedNanos = in.readLong();
            s.laterAcksSinceCopy = in.readInt();
            s.peerResetSinceCopy = in.readBoolean();
            s.lastTimerGapNanos = in.readLong();
            s.carriesPayload = in.readBoolean();
            d.sent.put(id, s);
        }
        d.controlPackets = in.readLong();
        d.ackOnlyPackets = in.readLong();
        d.dataPackets = in.readLong();
        d.opaquePackets = in.readLong();
        d.controlPayloadBytes = in.readLong();
        d.retransmits = in.readLong();
        for (int i = 0; i < d.retransmitsByCause.length; i++) {
            d.retransmitsByCause[i] = in.readLong();
        }
        d.duplicates = in.readLong();
        readLongs(in, d.retransmitGapsUs);
        readLongs(in, d.timeoutGapsUs);
        readStats(in, d.firstTimeoutGapUs);
        d.backoffRatioSum = in.readDouble();
        d.backoffRatios = in.readLong();
        readStats(in, d.ackLatencyUs);
        readLongs(in, d.retransmitTimesNanos);
        int causes = count(in, OpenVpnDirectionStats.MAX_LISTED, "retransmit causes");
        for (int i = 0; i < causes; i++) {
            int c = in.readUnsignedByte();
            if (c >= CAUSES.length) {
                throw new IOException("corrupt OpenVPN flow state: retransmit cause " + c);
            }
            d.retransmitCauses.add(CAUSES[c]);
        }
        d.lateFirstCopies = in.readLong();
        if (version >= 2) {
            d.tcpRetransmits = in.readLong();
        }
        d.highestId = in.readLong();
        d.lastControlWithPayloadNanos = in.readLong();
        d.lastControlWithPayloadId = in.readLong();
        if (version >= 3) {
            d.lastOwnNanos = in.readLong();
            d.quietRun = in.readBoolean();
            int n = count(in, OpenVpnDirectionStats.MAX_TRACKED_IDS, "tls-crypt control lengths");
            for (int i = 0; i < n; i++) {
                d.opaqueControlNanos.add(in.readLong());
                d.opaqueControlLengths.add(in.readInt());
            }
        }
    }

    private static void writeLongs(List<Long> values, DataOutput out) throws IOException {
        out.writeInt(values.size());
        for (long v : values) {
            out.writeLong(v);
        }
    }

    private static void readLongs(DataInput in, List<Long> into) throws IOException {
        int n = count(in, OpenVpnDirectionStats.MAX_LISTED, "listed values");
        for (int i = 0; i < n; i++) {
            into.add(in.readLong());
        }
    }

    private static void writeStats(LatencyStats s, DataOutput out) throws IOException {
        out.writeLong(s.samples);
        out.writeLong(s.min);
        out.writeLong(s.max);
        out.writeDouble(s.sum);
    }

    private static void readStats(DataInput in, LatencyStats s) throws IOException {
        s.samples = in.readLong();
        s.min = in.readLong();
        s.max = in.readLong();
        s.sum = in.readDouble();
    }

    /** A count within what the writer can have produced, so corrupt state cannot allocate without bound. */
    private static int count(DataInput in, int max, String what) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new IOException("corrupt OpenVPN flow state: " + n + " " + what + " (at most " + max + ")");
        }
        return n;
    }
}
