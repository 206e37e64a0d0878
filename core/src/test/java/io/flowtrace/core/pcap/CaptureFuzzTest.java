package io.flowtrace.core.pcap;

import static io.flowtrace.core.testing.Frames.bytes;
import static io.flowtrace.core.testing.Frames.ethernet;
import static io.flowtrace.core.testing.Frames.ipv4;
import static io.flowtrace.core.testing.Frames.ipv6;
import static io.flowtrace.core.testing.Frames.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.Frames;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random mutations of valid captures through reader and decoder: the only exception allowed out
 * is {@link CaptureFormatException}, every read terminates, and no input yields more records than
 * it has bytes for. The seed is fixed so a failure is reproducible; set -Dfuzz.iterations for
 * longer runs (the benchmark profile uses 10^6).
 */
class CaptureFuzzTest {
    private static final int ITERATIONS = Integer.getInteger("fuzz.iterations", 100_000);

    private static byte[][] seeds() {
        byte[] a = bytes(10, 0, 0, 1);
        byte[] b = bytes(10, 0, 0, 2);
        byte[] a6 = new byte[16];
        a6[0] = (byte) 0xfd;
        byte[] opts = bytes(2, 4, 5, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 7);
        byte[] sack = bytes(1, 1, 5, 10, 0, 0, 0, 100, 0, 0, 1, 0);
        byte[][] frames = {
            ethernet(0x0800, ipv4(a, b, 1, tcp(1, 2, 3, 4, 0x002, 5, opts, 0))),
            ethernet(0x0800, ipv4(b, a, 2, tcp(2, 1, 9, 4, 0x010, 5, sack, 20)), 7),
            ethernet(0x86DD, ipv6(a6, a6, 6, 64, tcp(1, 2, 3, 4, 0x018, 5, new byte[0], 10))),
            ethernet(0x0800, ipv4(a, b, 3, 64, 6, 0x2000, bytes(1, 1, 1, 0), tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 5))),
        };
        return new byte[][] {
            Frames.pcap(false, false, LinkType.ETHERNET, frames),
            Frames.pcap(true, true, LinkType.ETHERNET, frames),
            pcapng(frames),
        };
    }

    private static byte[] pcapng(byte[][] frames) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x0A0D0D0A)
                .putInt(28)
                .putInt(0x1A2B3C4D)
                .putShort((short) 1)
                .putShort((short) 0)
                .putLong(-1)
                .putInt(28);
        b.putInt(1)
                .putInt(32)
                .putShort((short) 1)
                .putShort((short) 0)
                .putInt(65535)
                .putShort((short) 9)
                .putShort((short) 1)
                .put((byte) 9)
                .put(new byte[3])
                .putInt(32);
        for (byte[] f : frames) {
            int padded = (f.length + 3) & ~3;
            int len = 32 + padded;
            b.putInt(6)
                    .putInt(len)
                    .putInt(0)
                    .putInt(1)
                    .putInt(2)
                    .putInt(f.length)
                    .putInt(f.length)
                    .put(f)
                    .put(new byte[padded - f.length])
                    .putInt(len);
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void survivesRandomMutationsOfValidCaptures() throws Exception {
        Random rnd = new Random(0xF10F);
        byte[][] seeds = seeds();
        PacketDecoder decoder = new PacketDecoder();
        DecodedPacket packet = new DecodedPacket();
        CaptureRecord rec = new CaptureRecord();
        long records = 0;
        long formatErrors = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input = mutate(seeds[rnd.nextInt(seeds.length)], rnd);
            long n = 0;
            try (CaptureReader r = CaptureReader.open(new ByteArrayInputStream(input))) {
                while (r.next(rec)) {
                    n++;
                    decoder.decode(rec, packet);
                    assertThat(packet.status).isNotNull();
                }
            } catch (CaptureFormatException expected) {
                formatErrors++;
            } catch (RuntimeException e) {
                throw new AssertionError("iteration " + i + " crashed on input of " + input.length + " bytes", e);
            }
            assertThat(n).isLessThanOrEqualTo(input.length / 12 + 1);
            records += n;
        }
        assertThat(records).isPositive();
        assertThat(formatErrors).isPositive();
    }

    private static byte[] mutate(byte[] seed, Random rnd) {
        byte[] b = seed.clone();
        switch (rnd.nextInt(5)) {
            case 0 -> { // flip a few random bytes
                for (int k = rnd.nextInt(4) + 1; k > 0; k--) {
                    b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                }
            }
            case 1 -> b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length)); // truncate
            case 2 -> { // 32-bit field set to an extreme
                int at = rnd.nextInt(b.length - 4) & ~3;
                int v = switch (rnd.nextInt(4)) {
                    case 0 -> -1;
                    case 1 -> Integer.MAX_VALUE;
                    case 2 -> 0;
                    default -> rnd.nextInt();
                };
                ByteBuffer.wrap(b).putInt(at, v);
            }
            case 3 -> { // random bytes after a valid header
                for (int k = 24; k < b.length; k++) {
                    if (rnd.nextInt(8) == 0) {
                        b[k] = (byte) rnd.nextInt(256);
                    }
                }
            }
            default -> { // pure garbage with a valid magic
                for (int k = 4; k < b.length; k++) {
                    b[k] = (byte) rnd.nextInt(256);
                }
            }
        }
        return b;
    }
}
