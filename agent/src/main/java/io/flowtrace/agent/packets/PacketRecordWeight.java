package io.flowtrace.agent.packets;

import io.flowtrace.agent.spool.RecordWeight;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.SingleObjectCodec;
import java.io.IOException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Packets in a record of the packet topic, for the spool's counts: a {@code PacketBatch}'s packet
 * count, read from its header and the count of its packets array without decoding the packets; 1
 * for anything else (a PacketEvent); an {@code OpenVpnBatch}'s likewise. The agent's own writers
 * write the array as one block, so the first block's count is the batch's; a value that does not
 * parse counts 1.
 */
public final class PacketRecordWeight implements RecordWeight {
    public static final PacketRecordWeight INSTANCE = new PacketRecordWeight();
    private static final long BATCH_FINGERPRINT =
            SingleObjectCodec.of(PacketBatch.class).fingerprint();
    private static final long OPENVPN_FINGERPRINT =
            SingleObjectCodec.of(OpenVpnBatch.class).fingerprint();

    private BinaryDecoder decoder;

    private PacketRecordWeight() {}

    @Override
    public synchronized int items(byte[] value, int offset, int length) {
        if (length <= SingleObjectCodec.HEADER_BYTES) {
            return 1;
        }
        long fp = SingleObjectCodec.fingerprintOf(value, offset, length);
        if (fp != BATCH_FINGERPRINT && fp != OPENVPN_FINGERPRINT) {
            return 1;
        }
        decoder = DecoderFactory.get()
                .binaryDecoder(
                        value,
                        offset + SingleObjectCodec.HEADER_BYTES,
                        length - SingleObjectCodec.HEADER_BYTES,
                        decoder);
        try {
            if (fp == OPENVPN_FINGERPRINT) {
                return openVpnPackets();
            }
            // PacketBatch's fields before the array (PacketBatch.avsc): vantage, link_type, ip_version,
            // the endpoints and base time, two seq bases.
            skipVantage();
            decoder.readInt();
            decoder.readInt();
            skipEndpointsAndBaseTime();
            decoder.readLong();
            decoder.readLong();
            return packetCount();
        } catch (IOException | RuntimeException e) {
            return 1;
        }
    }

    /**
     * OpenVpnBatch.avsc's fields before its packets: vantage, ip_version, endpoints, base time, ports,
     * tls-auth, tls-crypt, wrapping_detected, transport.
     */
    private int openVpnPackets() throws IOException {
        skipVantage();
        decoder.readInt();
        skipEndpointsAndBaseTime();
        for (long block = decoder.readArrayStart(); block != 0; block = decoder.arrayNext()) {
            for (long i = 0; i < block; i++) {
                decoder.readInt();
            }
        }
        decoder.readInt();
        decoder.readBoolean();
        decoder.readBoolean();
        decoder.skipString();
        return packetCount();
    }

    /** vantage {agent_id, interface_name}, the first field of both batch schemas. */
    private void skipVantage() throws IOException {
        decoder.skipString();
        decoder.skipString();
    }

    /** low_addr, low_port, high_addr, high_port, base_time_ns: in both batch schemas, in this order. */
    private void skipEndpointsAndBaseTime() throws IOException {
        decoder.skipBytes();
        decoder.readInt();
        decoder.skipBytes();
        decoder.readInt();
        decoder.readLong();
    }

    /** The first block count of the packets array; 1 when it is not a plausible count. */
    private int packetCount() throws IOException {
        long n = decoder.readArrayStart();
        return n > 0 && n <= Integer.MAX_VALUE ? (int) n : 1;
    }
}
