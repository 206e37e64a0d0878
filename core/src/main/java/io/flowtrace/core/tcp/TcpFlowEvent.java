package io.flowtrace.core.tcp;

/**
 * Something worth a row of its own in the event stream. Times are capture times in
 * nanoseconds since the epoch; sequence numbers are relative to the sender's ISN.
 */
public sealed interface TcpFlowEvent {
    long timeNanos();

    /** True when the client sent the segment the event is about. */
    boolean fromClient();

    /**
     * @param retransmissionClass the class counted in the flow's summary (SPURIOUS when already ACKed)
     * @param trigger the recovery mechanism that sent it (RTO, FAST, TLP or OTHER), even when spurious
     * @param transmission 2 for the first retransmission of this data, 3 for the next, ...
     */
    record Retransmission(
            long timeNanos,
            boolean fromClient,
            RetransmissionClass retransmissionClass,
            RetransmissionClass trigger,
            long seq,
            int bytes,
            long sinceOriginalNanos,
            int transmission)
            implements TcpFlowEvent {}

    record Reordering(long timeNanos, boolean fromClient, long seq, int bytes, long holeAgeNanos)
            implements TcpFlowEvent {}

    record LostSegment(long timeNanos, boolean fromClient, long expectedSeq, long seenSeq) implements TcpFlowEvent {}

    record ZeroWindow(long timeNanos, boolean fromClient) implements TcpFlowEvent {}

    record SynRetransmission(long timeNanos, boolean fromClient, int attempt, long gapNanos) implements TcpFlowEvent {}

    /** One RTT round ended: its cwnd estimate (largest flight), min RTT (-1 without samples), bytes delivered. */
    record Round(long timeNanos, boolean fromClient, int index, long flightBytes, long minRttNanos, long deliveredBytes)
            implements TcpFlowEvent {}

    /** The sender left slow start ({@code sinceSynNanos} -1 when no SYN was seen). */
    record SlowStartExit(
            long timeNanos, boolean fromClient, SlowStartExitCause reason, long cwndBytes, long sinceSynNanos)
            implements TcpFlowEvent {}

    /** The same data was retransmitted by RTO again: {@code gapNanos} since the previous attempt. */
    record RtoBackoff(long timeNanos, boolean fromClient, long seq, int attempt, long gapNanos)
            implements TcpFlowEvent {}
}
