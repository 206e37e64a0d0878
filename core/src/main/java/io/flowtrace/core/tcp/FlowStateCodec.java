package io.flowtrace.core.tcp;

import io.flowtrace.core.net.Endpoint;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Serialises a flow's complete analysis state, for Flink keyed state (heap and RocksDB backends,
 * checkpoints, savepoints) and for measuring what a flow costs. The first byte is a format
 * version: a reader refuses versions it does not know instead of misreading them, and a new
 * version must keep reading the old ones (savepoint upgrades, docs/operations.md). Version 2
 * appends the slow-start state of docs/metrics.md's loss-exit rule (the largest flight before the
 * first loss retransmission) after the version-1 fields; version 3 appends the slow-start growth
 * bound and the stuck-window rule's state after those; version 4 appends whether a HyStart signal
 * was refuted by later growth (docs/metrics.md, slow-start exit); version 5 the send time that starts
 * each sender's current delivery-rate sample (docs/metrics.md, max_delivery_rate_bps).
 */
public final class FlowStateCodec {
    public static final int VERSION = 5;
    /** The oldest version this build still reads. */
    public static final int OLDEST_READABLE = 1;

    private FlowStateCodec() {}

    public static void write(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        out.writeByte(VERSION);
        writeEndpoint(flow.client, out);
        writeEndpoint(flow.server, out);
        out.writeBoolean(flow.clientGuessed);
        flow.fromClient.write(out);
        flow.fromServer.write(out);
        flow.setup.write(out);
        flow.handshake.write(out);
        Varints.write(out, flow.firstSeenNanos);
        Varints.write(out, flow.lastSeenNanos);
        out.writeByte(flow.flowEnd.ordinal());
        out.writeByte((flow.finFromClient ? 1 : 0) | (flow.finFromServer ? 2 : 0));
        writeVersion2Fields(flow, out);
    }

    /** The fields after version 1's (version 2's, then version 3's): an older state is a prefix and still reads. */
    static void writeVersion2Fields(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        flow.fromClient.writeV2(out);
        flow.fromServer.writeV2(out);
        writeVersion3Fields(flow, out);
    }

    static void writeVersion3Fields(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        flow.fromClient.writeV3(out);
        flow.fromServer.writeV3(out);
        writeVersion4Fields(flow, out);
    }

    static void writeVersion4Fields(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        flow.fromClient.writeV4(out);
        flow.fromServer.writeV4(out);
        writeVersion5Fields(flow, out);
    }

    static void writeVersion5Fields(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        flow.fromClient.writeV5(out);
        flow.fromServer.writeV5(out);
    }

    public static TcpFlowAnalyzer read(DataInput in, AnalyzerConfig config) throws IOException {
        int version = in.readByte();
        if (version < OLDEST_READABLE || version > VERSION) {
            throw new IOException("unknown flow state version " + version + " (this build reads " + OLDEST_READABLE
                    + " to " + VERSION + ")");
        }
        Endpoint client = readEndpoint(in);
        Endpoint server = readEndpoint(in);
        TcpFlowAnalyzer f = new TcpFlowAnalyzer(client, server, in.readBoolean(), config);
        f.fromClient.read(in);
        f.fromServer.read(in);
        f.setup.read(in);
        f.handshake.read(in);
        f.firstSeenNanos = Varints.read(in);
        f.lastSeenNanos = Varints.read(in);
        f.flowEnd = TcpFlowEnd.values()[in.readByte()];
        int fins = in.readByte();
        f.finFromClient = (fins & 1) != 0;
        f.finFromServer = (fins & 2) != 0;
        if (version >= 2) {
            f.fromClient.readV2(in);
            f.fromServer.readV2(in);
        }
        if (version >= 3) {
            f.fromClient.readV3(in);
            f.fromServer.readV3(in);
        }
        if (version >= 4) {
            f.fromClient.readV4(in);
            f.fromServer.readV4(in);
        }
        if (version >= 5) {
            f.fromClient.readV5(in);
            f.fromServer.readV5(in);
        }
        return f;
    }

    private static void writeEndpoint(Endpoint e, DataOutput out) throws IOException {
        out.writeByte(e.address().length);
        out.write(e.address());
        out.writeShort(e.port());
    }

    private static Endpoint readEndpoint(DataInput in) throws IOException {
        int len = in.readByte();
        if (len != 4 && len != 16) {
            throw new IOException("corrupt flow state: address length " + len);
        }
        byte[] a = new byte[len];
        in.readFully(a);
        return new Endpoint(a, in.readUnsignedShort());
    }

    public static byte[] toBytes(TcpFlowAnalyzer flow) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try {
            write(flow, new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException("impossible: in-memory stream", e);
        }
        return bytes.toByteArray();
    }

    public static TcpFlowAnalyzer fromBytes(byte[] state, AnalyzerConfig config) throws IOException {
        return read(new DataInputStream(new ByteArrayInputStream(state)), config);
    }
}
