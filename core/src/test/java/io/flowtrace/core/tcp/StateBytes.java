package io.flowtrace.core.tcp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;

/** A detector's flow state written to bytes and handed back for reading: the round trips of the detector tests. */
final class StateBytes {
    /** What writes a piece of flow state (a detector's {@code write}, or several in the codec's order). */
    interface Writer {
        void write(DataOutput out) throws IOException;
    }

    private StateBytes() {}

    static byte[] of(Writer writer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writer.write(new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    static DataInputStream in(byte[] bytes) {
        return new DataInputStream(new ByteArrayInputStream(bytes));
    }

    /** The state {@code writer} writes, ready to be read back. */
    static DataInputStream written(Writer writer) throws IOException {
        return in(of(writer));
    }
}
