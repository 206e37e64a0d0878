package io.flowtrace.core.pcap;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes classic pcap (little-endian, nanosecond magic). Used to synthesise scale-up captures for
 * the benchmarks (shifted addresses, concatenated flows) and test inputs.
 */
public final class PcapWriter implements Closeable {
    private final OutputStream out;
    private final ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);

    public PcapWriter(OutputStream out, int linkType, int snapLength) throws IOException {
        this.out = out;
        ByteBuffer g = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        g.putInt((int) PcapReader.MAGIC_NANOS)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(snapLength)
                .putInt(linkType);
        out.write(g.array());
    }

    public void write(long timestampNanos, byte[] data, int offset, int capturedLength, int wireLength)
            throws IOException {
        header.clear();
        header.putInt((int) (timestampNanos / 1_000_000_000L))
                .putInt((int) (timestampNanos % 1_000_000_000L))
                .putInt(capturedLength)
                .putInt(wireLength);
        out.write(header.array());
        out.write(data, offset, capturedLength);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
