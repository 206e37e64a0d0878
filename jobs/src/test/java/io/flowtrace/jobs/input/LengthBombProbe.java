package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.flow.FlowBatch;
import java.util.HexFormat;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Run by {@link LengthBombWithoutAvroLimitsTest} in a JVM of its own (no Avro -D limits, a small heap):
 * feeds the hex record of its argument to {@link PacketRecordDeserializer} and prints what came out.
 */
public final class LengthBombProbe {
    private LengthBombProbe() {}

    public static void main(String[] args) {
        byte[] value = HexFormat.of().parseHex(args[0]);
        System.out.println("limits " + System.getProperty("org.apache.avro.limits.string.maxLength"));
        new PacketRecordDeserializer()
                .deserialize(
                        new ConsumerRecord<>("flowtrace.packets", 0, 7L, null, value),
                        new Collector<Either<DeadLetter, FlowBatch>>() {
                            @Override
                            public void collect(Either<DeadLetter, FlowBatch> e) {
                                if (e.isLeft()) {
                                    DeadLetter d = e.left();
                                    System.out.println("dead letter " + d.getStage() + " " + d.getErrorClass() + ": "
                                            + d.getReason());
                                } else {
                                    System.out.println("packet record " + e.right().key);
                                }
                            }

                            @Override
                            public void close() {}
                        });
    }
}
