package io.flowtrace.jobs.flow;

import io.flowtrace.avro.BoundedBinaryDecoder;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * The packets of one {@link FlowBatch}, decoded once for {@link FlowAnalysisFunction}: a
 * PacketBatch or a PacketEvent behind its single-object header (docs/schemas.md), read with
 * reused Avro readers over a {@link BoundedBinaryDecoder} (a length or count beyond the record is
 * refused as it is read: the untrusted body is walked once), then one packet at a time into a
 * reused {@link DecodedPacket}. What cannot be analysed comes back as a {@link DeadLetter} for the function to send; no Flink here.
 */
final class FlowBatchDecoder {
    private static final int SINGLE_OBJECT_HEADER = 10;

    private final SpecificDatumReader<PacketBatch> batchReader = new SpecificDatumReader<>(PacketBatch.class);
    private final SpecificDatumReader<PacketEvent> eventReader = new SpecificDatumReader<>(PacketEvent.class);
    /** Refuses a length or count beyond the record as it decodes: the batch's bytes are walked once. */
    private final BoundedBinaryDecoder binary = new BoundedBinaryDecoder(new byte[0], 0, 0);

    private PacketBatch batch;
    private PacketEvent event;
    private DeadLetter rejection;

    /**
     * Decodes the record and returns how many packets it holds, or 0 when it is rejected whole
     * ({@link #rejection()} says why). The source has validated a batch's header and a PacketEvent
     * whole, so only a batch's body can fail here.
     */
    int decode(FlowBatch record) {
        rejection = null;
        byte[] value = record.value;
        int length = value.length - SINGLE_OBJECT_HEADER;
        if (PacketBatches.fingerprintOf(value) != PacketBatches.FINGERPRINT) {
            try {
                event = eventReader.read(event, binary.reset(value, SINGLE_OBJECT_HEADER, length));
            } catch (IOException | RuntimeException e) {
                // impossible for a record the source decoded, unless the job's jars disagree
                return reject(record, e);
            }
            batch = null;
            return 1;
        }
        try {
            batch = batchReader.read(batch, binary.reset(value, SINGLE_OBJECT_HEADER, length));
        } catch (IOException | RuntimeException e) {
            // untrusted bytes behind a valid header: the record's fault, kept whole with its class
            return reject(record, e);
        }
        int n = batch.getPackets().size();
        if (n < 1 || n > PacketBatches.MAX_PACKETS) {
            rejection = record.deadLetter(
                    DeadLetterStage.VALIDATE,
                    "a batch of " + n + " packets (1 to " + PacketBatches.MAX_PACKETS + " accepted)",
                    null,
                    record.packets);
            return 0;
        }
        return n;
    }

    /** Why the last record {@link #decode} returned 0 for was rejected whole. */
    DeadLetter rejection() {
        return rejection;
    }

    /** The vantage point of the decoded record (the source checked it: docs/schemas.md). */
    VantagePoint vantage() {
        return PacketEvents.vantagePoint(batch != null ? batch.getVantage() : event.getVantage());
    }

    /** Fills {@code into} with packet {@code i} of the decoded record, or says why it cannot be analysed. */
    String packet(int i, long nowNanos, DecodedPacket into) {
        if (batch == null) {
            PacketEvents.fromAvro(event, into);
            return null;
        }
        String invalid = PacketBatches.invalidPacketReason(batch, i, nowNanos);
        if (invalid == null) {
            PacketBatches.fromAvro(batch, i, into);
        }
        return invalid;
    }

    private int reject(FlowBatch record, Exception e) {
        rejection = record.deadLetter(DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e, record.packets);
        return 0;
    }
}
