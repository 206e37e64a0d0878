package io.flowtrace.agent.packets;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SingleObjectHeader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Avro single-object encoding of a {@link PacketEvent} (docs/schemas.md): {@code C3 01}, the
 * schema's CRC-64-AVRO fingerprint little-endian, the binary datum; byte for byte what
 * {@code PacketEvent.getEncoder().encode(e)} writes (PacketEncodingPathTest), with one reused
 * encoder. {@code BinaryMessageEncoder} costs about three times as much per packet (docs/agent.md).
 * The datum is written by the generated class's own {@code customEncode}, field by field, not by
 * {@code SpecificDatumWriter}: Avro uses custom coders only when the JVM-wide system property
 * {@code org.apache.avro.specific.use_custom_coders} is true, and its generic path (a field lookup,
 * a "stringable" set lookup and a union resolution per field) was the largest share of the agent's
 * own work in a JFR profile of the publish path.
 */
final class PacketEventEncoder {
    private static final byte[] HEADER = SingleObjectHeader.of(PacketEvent.getClassSchema());

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;

    byte[] encode(PacketEvent event) {
        out.reset();
        out.write(HEADER, 0, HEADER.length);
        encoder = EncoderFactory.get().directBinaryEncoder(out, encoder);
        try {
            event.customEncode(encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a PacketEvent into memory", e);
        }
        return out.toByteArray();
    }
}
