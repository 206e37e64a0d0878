package io.flowtrace.bench;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Decoded TCP packets held in memory, so a benchmark measures the analyser and nothing else. */
public final class Packets {
    private Packets() {}

    public static DecodedPacket[] load(Path capture) throws IOException {
        List<DecodedPacket> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(capture);
                CaptureReader r = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (r.next(rec)) {
                if (decoder.decode(rec, p) == DecodeStatus.TCP) {
                    DecodedPacket copy = new DecodedPacket();
                    copy.copyFrom(p);
                    out.add(copy);
                }
            }
        } catch (CaptureFormatException e) {
            throw new IOException(capture + ": " + e.getMessage(), e);
        }
        return out.toArray(new DecodedPacket[0]);
    }

    /** The repository's testdata directory, found upwards from the working directory. */
    public static Path testdata(String relative) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("testdata"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("run from inside the flowtrace repository (testdata/ not found)");
        }
        return dir.resolve("testdata").resolve(relative);
    }
}
