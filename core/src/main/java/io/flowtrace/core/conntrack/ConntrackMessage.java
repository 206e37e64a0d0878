package io.flowtrace.core.conntrack;

import java.util.ArrayList;
import java.util.List;

/**
 * One conntrack event, from a raw ctnetlink message or from conntrack(8) text. Numeric fields use
 * {@link #ABSENT} (-1) when the attribute was not in the message; object fields use null.
 *
 * <p>{@code eventTimestampNanos} is CTA_TIMESTAMP_EVENT (type 27, ctnetlink_dump_event_timestamp(),
 * wall clock ns); {@code observedAtNanos} is when the listener got it (the text prefix
 * {@code [sec.usec]}, or the receive time of the raw source). {@code wireSize} is nlmsg_len when the
 * raw message was seen, else -1. {@code attributes} is the attribute list sizing works from.
 */
public record ConntrackMessage(
        EventType type,
        int family,
        ConntrackTuple orig,
        ConntrackTuple reply,
        ConntrackTuple master,
        long id,
        long status,
        long timeout,
        TcpProtoInfo tcp,
        DirectionCounters origCounters,
        DirectionCounters replyCounters,
        long timestampStart,
        long timestampStop,
        long eventTimestampNanos,
        long mark,
        int zone,
        long use,
        String helper,
        byte[] labels,
        String secctx,
        SeqAdjustment seqAdjOrig,
        SeqAdjustment seqAdjReply,
        long observedAtNanos,
        int wireSize,
        PresentAttributes attributes,
        List<UnknownAttribute> unknown) {

    public static final int ABSENT = -1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    public ConntrackMessage {
        unknown = List.copyOf(unknown);
    }

    public int proto() {
        return orig == null ? ABSENT : orig.proto();
    }

    /** Best time for budgets: the kernel's event timestamp when present, else when it was observed. */
    public long timeNanos() {
        return eventTimestampNanos != ABSENT ? eventTimestampNanos : observedAtNanos;
    }

    public ConntrackMessage withAttributes(PresentAttributes a) {
        return toBuilder().attributes(a).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.type = type;
        b.family = family;
        b.orig = orig;
        b.reply = reply;
        b.master = master;
        b.id = id;
        b.status = status;
        b.timeout = timeout;
        b.tcp = tcp;
        b.origCounters = origCounters;
        b.replyCounters = replyCounters;
        b.timestampStart = timestampStart;
        b.timestampStop = timestampStop;
        b.eventTimestampNanos = eventTimestampNanos;
        b.mark = mark;
        b.zone = zone;
        b.use = use;
        b.helper = helper;
        b.labels = labels;
        b.secctx = secctx;
        b.seqAdjOrig = seqAdjOrig;
        b.seqAdjReply = seqAdjReply;
        b.observedAtNanos = observedAtNanos;
        b.wireSize = wireSize;
        b.attributes = attributes;
        b.unknown.addAll(unknown);
        return b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable assembly for the parsers; the record stays immutable. */
    public static final class Builder {
        EventType type;
        int family = ABSENT;
        ConntrackTuple orig;
        ConntrackTuple reply;
        ConntrackTuple master;
        long id = ABSENT;
        long status = ABSENT;
        long timeout = ABSENT;
        TcpProtoInfo tcp;
        DirectionCounters origCounters;
        DirectionCounters replyCounters;
        long timestampStart = ABSENT;
        long timestampStop = ABSENT;
        long eventTimestampNanos = ABSENT;
        long mark = ABSENT;
        int zone = ABSENT;
        long use = ABSENT;
        String helper;
        byte[] labels;
        String secctx;
        SeqAdjustment seqAdjOrig;
        SeqAdjustment seqAdjReply;
        long observedAtNanos = ABSENT;
        int wireSize = ABSENT;
        PresentAttributes attributes;
        final List<UnknownAttribute> unknown = new ArrayList<>();

        public Builder type(EventType v) {
            type = v;
            return this;
        }

        public Builder family(int v) {
            family = v;
            return this;
        }

        public Builder orig(ConntrackTuple v) {
            orig = v;
            return this;
        }

        public Builder reply(ConntrackTuple v) {
            reply = v;
            return this;
        }

        public Builder master(ConntrackTuple v) {
            master = v;
            return this;
        }

        public Builder id(long v) {
            id = v;
            return this;
        }

        public Builder status(long v) {
            status = v;
            return this;
        }

        public Builder timeout(long v) {
            timeout = v;
            return this;
        }

        public Builder tcp(TcpProtoInfo v) {
            tcp = v;
            return this;
        }

        public Builder origCounters(DirectionCounters v) {
            origCounters = v;
            return this;
        }

        public Builder replyCounters(DirectionCounters v) {
            replyCounters = v;
            return this;
        }

        public Builder timestampStart(long v) {
            timestampStart = v;
            return this;
        }

        public Builder timestampStop(long v) {
            timestampStop = v;
            return this;
        }

        public Builder eventTimestampNanos(long v) {
            eventTimestampNanos = v;
            return this;
        }

        public Builder mark(long v) {
            mark = v;
            return this;
        }

        public Builder zone(int v) {
            zone = v;
            return this;
        }

        public Builder use(long v) {
            use = v;
            return this;
        }

        public Builder helper(String v) {
            helper = v;
            return this;
        }

        public Builder labels(byte[] v) {
            labels = v;
            return this;
        }

        public Builder secctx(String v) {
            secctx = v;
            return this;
        }

        public Builder seqAdjOrig(SeqAdjustment v) {
            seqAdjOrig = v;
            return this;
        }

        public Builder seqAdjReply(SeqAdjustment v) {
            seqAdjReply = v;
            return this;
        }

        public Builder observedAtNanos(long v) {
            observedAtNanos = v;
            return this;
        }

        public Builder wireSize(int v) {
            wireSize = v;
            return this;
        }

        public Builder attributes(PresentAttributes v) {
            attributes = v;
            return this;
        }

        public Builder unknown(UnknownAttribute v) {
            unknown.add(v);
            return this;
        }

        public ConntrackMessage build() {
            return new ConntrackMessage(
                    type,
                    family,
                    orig,
                    reply,
                    master,
                    id,
                    status,
                    timeout,
                    tcp,
                    origCounters,
                    replyCounters,
                    timestampStart,
                    timestampStop,
                    eventTimestampNanos,
                    mark,
                    zone,
                    use,
                    helper,
                    labels,
                    secctx,
                    seqAdjOrig,
                    seqAdjReply,
                    observedAtNanos,
                    wireSize,
                    attributes,
                    unknown);
        }
    }
}
