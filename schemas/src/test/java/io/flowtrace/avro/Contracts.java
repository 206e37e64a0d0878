package io.flowtrace.avro;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/** The top-level records that travel on Kafka or land in sinks: each one is a released contract. */
final class Contracts {

    static final List<Class<? extends SpecificRecord>> ALL = List.of(
            PacketEvent.class,
            PacketBatch.class,
            ConntrackEvent.class,
            ConntrackLoss.class,
            FlowRecord.class,
            TcpEvent.class,
            ServiceWindow.class,
            VantageWindow.class,
            ConntrackBudget.class,
            DeadLetter.class,
            OpenVpnBatch.class,
            OpenVpnSessionRecord.class,
            OpenVpnServerWindow.class);

    private Contracts() {}

    static Schema currentSchema(Class<? extends SpecificRecord> type) {
        return SpecificData.get().getSchema(type);
    }
}
