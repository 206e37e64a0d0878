package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The offline pipeline over one capture: read → decode → track flows → report each flow once.
 * What {@code flowtrace analyze} and the core benchmarks run; the streaming job replaces the
 * reader with Kafka and the tracker with keyed state.
 */
public final class CaptureAnalysis {
    private final AnalyzerConfig config;
    private final IntFunction<String> vantageOfInterface;

    public CaptureAnalysis(AnalyzerConfig config, IntFunction<String> vantageOfInterface) {
        this.config = config;
        this.vantageOfInterface = vantageOfInterface;
    }

    /**
     * Analyses the whole stream. Unrecoverable format errors end the read but flows seen so far are
     * still reported; the summary says what happened.
     *
     * @param progress called every 65,536 records with the record count (may be a no-op)
     */
    public CaptureSummary run(InputStream in, FlowTracker.FlowListener flows, TcpEventSinkFactory events,
            CaptureErrorListener errors, LongConsumer progress) throws IOException {
        CaptureSummary summary = new CaptureSummary();
        FlowTracker tracker = new FlowTracker(config, vantageOfInterface, flows, events);
        CaptureErrorListener counting = e -> {
            summary.formatErrors++;
            errors.onError(e);
        };
        try (CaptureReader reader = CaptureReader.open(in, counting)) {
            summary.format = reader.formatDescription();
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket packet = new DecodedPacket();
            while (reader.next(rec)) {
                summary.records++;
                summary.bytesRead += rec.capturedLength;
                summary.byStatus[decoder.decode(rec, packet).ordinal()]++;
                tracker.onPacket(packet);
                if ((summary.records & 0xffff) == 0) {
                    progress.accept(summary.records);
                }
            }
            summary.format = reader.formatDescription();
        } catch (CaptureFormatException e) {
            summary.fatalError = e.getMessage();
        }
        tracker.flush();
        summary.flows = tracker.flowsStarted();
        return summary;
    }
}
