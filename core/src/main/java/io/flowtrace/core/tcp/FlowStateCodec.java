package io.flowtrace.core.tcp;

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
 * bound and the stuck-window rule's state after those.
 */
public final class FlowStateCodec {
    public static final int VERSION = 3;
    /** The oldest version this build still reads. */
    public static final int OLDEST_READABLE = 1;

    private FlowStateCodec() {}

    public static void write(TcpFlowAnalyzer flow, DataOutput out) throws IOException {
        out.writeByte(VERSION);
        flow.write(out);
    }

    public static TcpFlowAnalyzer read(DataInput in, AnalyzerConfig config) throws IOException {
        int version = in.readByte();
        if (version < OLDEST_READABLE || version > VERSION) {
            throw new IOException("unknown flow state version " + version + " (this build reads " + OLDEST_READABLE
                    + " to " + VERSION + ")");
        }
        return TcpFlowAnalyzer.read(in, config, version);
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
