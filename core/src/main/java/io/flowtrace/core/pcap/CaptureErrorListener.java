package io.flowtrace.core.pcap;

/** Receives errors the reader recovered from (or stopped at, for a truncated tail). */
@FunctionalInterface
public interface CaptureErrorListener {
    void onError(CaptureFormatException error);

    CaptureErrorListener IGNORE = error -> {};
}
