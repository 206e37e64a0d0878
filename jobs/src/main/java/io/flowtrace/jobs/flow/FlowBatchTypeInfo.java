package io.flowtrace.jobs.flow;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type of {@link FlowBatch}: its own serializer, never Kryo or the POJO serializer. */
public final class FlowBatchTypeInfo extends TypeInformation<FlowBatch> {
    private static final long serialVersionUID = 1L;

    public static final FlowBatchTypeInfo INSTANCE = new FlowBatchTypeInfo();

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<FlowBatch> getTypeClass() {
        return FlowBatch.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<FlowBatch> createSerializer(SerializerConfig config) {
        return FlowBatchSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "FlowBatch";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof FlowBatchTypeInfo;
    }

    @Override
    public int hashCode() {
        return FlowBatchTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof FlowBatchTypeInfo;
    }
}
