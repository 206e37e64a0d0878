package io.flowtrace.avro.mapping;

import io.flowtrace.avro.Direction;
import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.RetransmitClass;
import io.flowtrace.avro.SlowStartExitReason;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.TcpEventKind;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.util.List;

/** Between core's {@link TcpFlowEvent}s and the Avro {@link io.flowtrace.avro.TcpEvent} contract. */
public final class TcpEvents {
    private TcpEvents() {}

    /**
     * The contract form of a core event, or null for an event kind the contract has no row for
     * (e.g. per-round samples: they feed the flow summary, not the event table).
     *
     * @param index the event's ordinal within its flow instance (the stable upsert key)
     */
    public static TcpEvent toAvro(FlowIdentity flow, long index, TcpFlowEvent e) {
        TcpEvent.Builder b = TcpEvent.newBuilder()
                .setFlow(flow)
                .setIndex(index)
                .setTimeUs(Math.floorDiv(e.timeNanos(), 1000))
                .setDirection(e.fromClient() ? Direction.C2S : Direction.S2C);
        if (e instanceof TcpFlowEvent.Retransmission r) {
            return b.setKind(TcpEventKind.RETRANSMISSION)
                    .setRetransmitClass(
                            RetransmitClass.valueOf(r.retransmissionClass().name()))
                    .setSeq(r.seq())
                    .setBytes((long) r.bytes())
                    .setSinceOriginalUs(Math.floorDiv(r.sinceOriginalNanos(), 1000))
                    .setRetries(r.transmission() - 1)
                    .build();
        }
        if (e instanceof TcpFlowEvent.Reordering r) {
            return b.setKind(TcpEventKind.REORDERED)
                    .setSeq(r.seq())
                    .setBytes((long) r.bytes())
                    .build();
        }
        if (e instanceof TcpFlowEvent.LostSegment l) {
            return b.setKind(TcpEventKind.LOST_SEGMENT)
                    .setSeq(l.expectedSeq())
                    .setBytes(l.seenSeq() - l.expectedSeq())
                    .build();
        }
        if (e instanceof TcpFlowEvent.ZeroWindow) {
            return b.setKind(TcpEventKind.ZERO_WINDOW).build();
        }
        if (e instanceof TcpFlowEvent.SlowStartExit x) {
            return b.setKind(TcpEventKind.SLOW_START_EXIT)
                    .setExitReason(SlowStartExitReason.valueOf(x.reason().name()))
                    .setCwndBytes(x.cwndBytes())
                    .build();
        }
        if (e instanceof TcpFlowEvent.RtoBackoff r) {
            return b.setKind(TcpEventKind.RTO_BACKOFF)
                    .setSeq(r.seq())
                    .setRetries(r.attempt())
                    .setGapsUs(List.of(Math.floorDiv(r.gapNanos(), 1000)))
                    .build();
        }
        if (e instanceof TcpFlowEvent.SynRetransmission s) {
            return b.setKind(TcpEventKind.SYN_RETRANSMIT)
                    .setRetries(s.attempt())
                    .setGapsUs(List.of(Math.floorDiv(s.gapNanos(), 1000)))
                    .build();
        }
        return null;
    }
}
