package io.flowtrace.jobs.window;

/**
 * One upstream task's totals for one key and one window ({@link LocalWindowCombiner}): what a flow
 * window shuffle carries instead of every ended flow. Its timestamp is the window's last
 * millisecond, so the keyed window downstream puts it in the same window. A Flink POJO.
 */
public final class WindowPartial {
    /** The window's key: vantage, or vantage and service. */
    public String key;
    /** The window's last millisecond (its end minus one), the timestamp the partial is sent with. */
    public long windowMaxTimestampMs;

    public FlowWindowStats stats;

    public WindowPartial() {}

    WindowPartial(String key, long windowMaxTimestampMs, FlowWindowStats stats) {
        this.key = key;
        this.windowMaxTimestampMs = windowMaxTimestampMs;
        this.stats = stats;
    }

    /** The window's key, for the keyBy after the combiner. */
    public String key() {
        return key;
    }
}
