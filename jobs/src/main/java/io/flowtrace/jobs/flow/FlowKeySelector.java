package io.flowtrace.jobs.flow;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys a packet by its canonical bidirectional flow key at its vantage point ({@link
 * PacketEvents#flowKey}): both directions of a connection, and every instance of a reused port
 * pair, meet in one keyed state.
 */
public final class FlowKeySelector implements KeySelector<PacketEvent, String> {
    private static final long serialVersionUID = 1L;

    /** Reused: a key selector instance is used by one task thread. */
    private transient DecodedPacket scratch;

    @Override
    public String getKey(PacketEvent packet) {
        if (scratch == null) {
            scratch = new DecodedPacket();
        }
        PacketEvents.fromAvro(packet, scratch);
        return PacketEvents.flowKey(PacketEvents.vantage(packet.getVantage()), scratch);
    }
}
