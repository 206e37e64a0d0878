package io.flowtrace.core.analysis;

import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongConsumer;

/** The reader thread's loop: records in, filtered and decoded into batches of TCP packets, batches out. */
final class CaptureReading {
    /** Where a full batch (and, last, the final one) goes. */
    @FunctionalInterface
    interface HandOff {
        void put(DecodedBatch batch) throws InterruptedException;
    }

    private CaptureReading() {}

    /** Decodes a record that is not TCP as UDP (into {@code scratch}): from or to one of {@code ports}? */
    private static boolean contains(int[] ports, int port) {
        for (int q : ports) {
            if (q == port) {
                return true;
            }
        }
        return false;
    }

    private static boolean watched(PacketDecoder udp, CaptureRecord rec, DecodedPacket scratch, int[] ports) {
        if (udp.decode(rec, scratch) != DecodeStatus.UDP) {
            return false;
        }
        for (int port : ports) {
            if (scratch.srcPort == port || scratch.dstPort == port) {
                return true;
            }
        }
        return false;
    }

    static void read(
            InputStream in,
            CaptureRecordFilter filter,
            int[] watchedUdpPorts,
            CaptureSummary summary,
            CaptureErrorListener errors,
            LongConsumer progress,
            BlockingQueue<DecodedBatch> free,
            HandOff handOff)
            throws IOException, InterruptedException {
        CaptureErrorListener counting = e -> {
            summary.formatErrors++;
            errors.onError(e);
        };
        DecodedBatch batch = free.take();
        batch.size = 0;
        try (CaptureReader reader = CaptureReader.open(in, counting)) {
            summary.format = reader.formatDescription();
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            PacketDecoder udp = watchedUdpPorts.length > 0 ? PacketDecoder.withUdp() : null;
            while (reader.next(rec)) {
                summary.records++;
                summary.bytesRead += rec.capturedLength;
                if ((summary.records & 0xffff) == 0) {
                    progress.accept(summary.records);
                }
                if (!filter.accept(rec)) {
                    summary.filteredOut++;
                    continue;
                }
                DecodedPacket p = batch.packets[batch.size];
                DecodeStatus status = decoder.decode(rec, p);
                summary.byStatus[status.ordinal()]++;
                if (status == DecodeStatus.NOT_TCP && udp != null && watched(udp, rec, p, watchedUdpPorts)) {
                    summary.watchedUdp++;
                } else if (status == DecodeStatus.TCP
                        && udp != null
                        && p.payloadLength > 0
                        && (contains(watchedUdpPorts, p.srcPort) || contains(watchedUdpPorts, p.dstPort))) {
                    summary.watchedTcp++;
                }
                if (status == DecodeStatus.TCP && ++batch.size == DecodedBatch.CAPACITY) {
                    handOff.put(batch);
                    batch = free.take();
                    batch.size = 0;
                }
            }
            summary.format = reader.formatDescription();
        } catch (CaptureFormatException e) {
            summary.fatalError = e.getMessage();
        }
        batch.last = true;
        handOff.put(batch);
    }
}
