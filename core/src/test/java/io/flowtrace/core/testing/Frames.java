package io.flowtrace.core.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Builds frames byte by byte from header layouts written out in the test (RFC 791, 8200, 9293),
 * so expected field values are known independently of the decoder under test.
 */
public final class Frames {
    private Frames() {}

    /** A TCP segment with the given options bytes (padded to 4) and a zero payload. */
    public static byte[] tcp(
            int srcPort, int dstPort, long seq, long ack, int flags, int window, byte[] options, int payload) {
        int optLen = (options.length + 3) & ~3;
        ByteBuffer t = ByteBuffer.allocate(20 + optLen + payload);
        t.putShort((short) srcPort).putShort((short) dstPort).putInt((int) seq).putInt((int) ack);
        int dataOffsetWords = (20 + optLen) / 4;
        t.put((byte) ((dataOffsetWords << 4) | ((flags >> 8) & 1))).put((byte) flags);
        t.putShort((short) window).putShort((short) 0).putShort((short) 0);
        t.put(options);
        return t.array();
    }

    public static byte[] ipv4(
            byte[] src, byte[] dst, int id, int ttl, int proto, int fragField, byte[] options, byte[] payload) {
        int ihl = 20 + options.length;
        ByteBuffer b = ByteBuffer.allocate(ihl + payload.length);
        b.put((byte) (0x40 | (ihl / 4)))
                .put((byte) 0)
                .putShort((short) (ihl + payload.length))
                .putShort((short) id)
                .putShort((short) fragField)
                .put((byte) ttl)
                .put((byte) proto)
                .putShort((short) 0)
                .put(src)
                .put(dst)
                .put(options)
                .put(payload);
        return b.array();
    }

    public static byte[] ipv4(byte[] src, byte[] dst, int id, byte[] tcp) {
        return ipv4(src, dst, id, 64, 6, 0x4000, new byte[0], tcp);
    }

    public static byte[] ipv6(byte[] src, byte[] dst, int nextHeader, int hopLimit, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(40 + payload.length);
        b.putInt(0x60000000)
                .putShort((short) payload.length)
                .put((byte) nextHeader)
                .put((byte) hopLimit)
                .put(src)
                .put(dst)
                .put(payload);
        return b.array();
    }

    public static byte[] ethernet(int etherType, byte[] payload, int... vlanTags) {
        ByteBuffer fixed = ByteBuffer.allocate(14 + 4 * vlanTags.length + payload.length);
        fixed.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2});
        for (int i = 0; i < vlanTags.length; i++) {
            fixed.putShort((short) (i == 0 && vlanTags.length > 1 ? 0x88A8 : 0x8100));
            fixed.putShort((short) vlanTags[i]);
        }
        fixed.putShort((short) etherType).put(payload);
        return fixed.array();
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    public static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    /** A classic pcap file holding the frames, all with the same link type, 1 ms apart. */
    public static byte[] pcap(boolean bigEndian, boolean nanos, int linkType, byte[]... frames) {
        ByteOrder order = bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        int size = 24;
        for (byte[] f : frames) {
            size += 16 + f.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(order);
        b.putInt(nanos ? 0xa1b23c4d : 0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(linkType);
        for (int i = 0; i < frames.length; i++) {
            b.putInt(1_700_000_000 + i)
                    .putInt(nanos ? 123_456_789 : 123_456)
                    .putInt(frames[i].length)
                    .putInt(frames[i].length)
                    .put(frames[i]);
        }
        return b.array();
    }
}
