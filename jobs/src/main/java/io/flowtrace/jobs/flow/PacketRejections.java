package io.flowtrace.jobs.flow;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;

/**
 * The packets of one batch that could not be analysed (docs/job.md, "Bad input"): each is dropped
 * alone, the others are analysed, and the batch gets one VALIDATE dead letter that counts them and
 * names the first with its reason. Reused from batch to batch ({@link #reset}).
 */
public final class PacketRejections {
    private int count;
    private String first;

    /** Forgets the previous batch's rejections. */
    public void reset() {
        count = 0;
        first = null;
    }

    public void add(int index, String reason) {
        if (count++ == 0) {
            first = "packet " + index + ": " + reason;
        }
    }

    public int count() {
        return count;
    }

    /**
     * The batch's dead letter, to emit when {@link #count} is not 0.
     *
     * @param packets how many packets the batch holds
     * @param what what its packets are called in the reason ("packets", "OpenVPN packets")
     */
    public DeadLetter deadLetter(FlowBatch record, int packets, String what) {
        return record.deadLetter(
                DeadLetterStage.VALIDATE,
                count + " of " + packets + " " + what + " rejected, the others analysed; " + first,
                null,
                count);
    }
}
