package io.flowtrace.core.conntrack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code conntrack -E -o timestamp,extended,id,ktimestamp} lines (and {@code -o xml} flows,
 * see {@link ConntrackXmlFlowParser}) into {@link ConntrackMessage}s whose attribute list is rebuilt by
 * {@link KernelEventLayout} — the text never shows the 6.18 event timestamp, the TCP window scales and
 * flags, or the full status word, and those are filled in from the {@link KernelFeatures} given here.
 * See docs/conntrack.md for the full list. Bad lines are reported with their line number; reading
 * goes on.
 */
public final class ConntrackLineParser {
    private static final Pattern HEAD = Pattern.compile(
            "^(?:\\[(\\d+)\\.(\\d+)\\]\\s+)?\\[(NEW|UPDATE|DESTROY)\\]\\s+(?:(ipv4|ipv6)\\s+(\\d+)\\s+)?(\\S+)\\s+(\\d+)\\s*(.*)$");
    private static final Pattern KTIME = Pattern.compile("\\[(start|stop)=([^\\]]*)\\]");
    /** ctime() layout that libnetfilter_conntrack prints for ktimestamp, in the host's local time. */
    private static final DateTimeFormatter CTIME =
            DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ENGLISH);

    private final KernelFeatures features;
    private final ZoneId zone;
    private final ConntrackXmlFlowParser xml;

    public ConntrackLineParser(KernelFeatures features, ZoneId zone) {
        this.features = features;
        this.zone = zone;
        this.xml = new ConntrackXmlFlowParser();
    }

    public ConntrackLineParser(KernelFeatures features) {
        this(features, ZoneId.systemDefault());
    }

    /** Reads every line; events in order, plus one error per line that could not be read. */
    public TextParseResult parse(BufferedReader in) {
        List<ConntrackMessage> events = new ArrayList<>();
        List<ConntrackTextParseException> errors = new ArrayList<>();
        long n = 0;
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                n++;
                try {
                    ConntrackMessage e = parseLine(line, n);
                    if (e != null) {
                        events.add(e);
                    }
                } catch (ConntrackTextParseException ex) {
                    errors.add(ex);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading conntrack output after line " + n, e);
        }
        return new TextParseResult(events, errors);
    }

    /** One line; null for lines that carry no event (XML prolog, blank, {@code <conntrack>}). */
    public ConntrackMessage parseLine(String line, long lineNumber) throws ConntrackTextParseException {
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("<?xml") || s.equals("<conntrack>") || s.equals("</conntrack>")) {
            return null;
        }
        try {
            ConntrackMessage.Builder b = s.startsWith("<flow") ? xml.parse(s) : plain(s);
            ConntrackMessage partial = b.build();
            return b.attributes(KernelEventLayout.infer(partial, features)).build();
        } catch (IllegalArgumentException e) {
            throw new ConntrackTextParseException(lineNumber, e.getMessage());
        }
    }

    private ConntrackMessage.Builder plain(String s) {
        Matcher h = HEAD.matcher(s);
        if (!h.matches()) {
            throw new IllegalArgumentException("not a conntrack event line: '" + abbreviate(s) + "'");
        }
        ConntrackMessage.Builder b = ConntrackMessage.builder().type(EventType.valueOf(h.group(3)));
        if (h.group(1) != null) {
            String usec = (h.group(2) + "000000").substring(0, 6);
            b.observedAtNanos(Long.parseLong(h.group(1)) * 1_000_000_000L + Long.parseLong(usec) * 1000L);
        }
        if (h.group(5) != null) {
            b.family(Integer.parseInt(h.group(5)));
        }
        int proto = Integer.parseInt(h.group(7));
        String rest = h.group(8);
        Matcher kt = KTIME.matcher(rest);
        while (kt.find()) {
            long ns = ctimeNanos(kt.group(2));
            if (kt.group(1).equals("start")) {
                b.timestampStart(ns);
            } else {
                b.timestampStop(ns);
            }
        }
        tokens(kt.replaceAll(" ").trim().split("\\s+"), proto, b);
        return b;
    }

    private static void tokens(String[] tok, int proto, ConntrackMessage.Builder b) {
        TupleText[] t = {new TupleText(), new TupleText()};
        int dir = -1;
        int i = 0;
        if (i < tok.length && isNumber(tok[i])) {
            b.timeout(Long.parseLong(tok[i++]));
        }
        if (i < tok.length && !tok[i].contains("=") && !tok[i].startsWith("[")) {
            int state = TcpProtoInfo.stateNumber(tok[i]);
            if (state < 0) {
                throw new IllegalArgumentException("unknown state '" + tok[i] + "'");
            }
            i++;
            if (proto == CtaTypes.IPPROTO_TCP) {
                b.tcp(TcpProtoInfo.stateOnly(state));
            }
        }
        long status = 0;
        boolean unreplied = false;
        for (; i < tok.length; i++) {
            String k = tok[i];
            if (k.startsWith("[")) {
                unreplied |= k.equals("[UNREPLIED]");
                status |= k.equals("[ASSURED]") ? 4 : 0;
                continue;
            }
            int eq = k.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("unexpected token '" + k + "'");
            }
            String key = k.substring(0, eq);
            String v = k.substring(eq + 1);
            if (key.equals("src")) {
                if (++dir > 1) {
                    throw new IllegalArgumentException("more than two tuples");
                }
                t[dir].proto = proto;
                t[dir].src = v;
                continue;
            }
            TupleText cur = dir >= 0 && dir <= 1 ? t[dir] : null;
            if (!tupleField(cur, key, v)) {
                eventField(key, v, b);
                dir = 2; // fields after the tuples end them: a later id= is the conntrack id
            }
        }
        if (dir < 1) {
            throw new IllegalArgumentException("expected two tuples (src=... twice)");
        }
        // IPS_SEEN_REPLY (bit 1) is what [UNREPLIED] negates; other bits are not shown
        b.status(status | (unreplied ? 0 : 2));
        ConntrackTuple orig = t[0].toTuple("original");
        b.orig(orig).reply(t[1].toTuple("reply"));
        if (b.family == ConntrackMessage.ABSENT) {
            b.family(orig.isIpv6() ? ConntrackMessage.AF_INET6 : ConntrackMessage.AF_INET);
        }
        b.origCounters(t[0].counters()).replyCounters(t[1].counters());
    }

    private static boolean tupleField(TupleText t, String key, String v) {
        if (t == null) {
            return false;
        }
        switch (key) {
            case "dst" -> t.dst = v;
            case "sport" -> t.sport = parseInt(key, v);
            case "dport" -> t.dport = parseInt(key, v);
            case "type" -> t.type = parseInt(key, v);
            case "code" -> t.code = parseInt(key, v);
            case "packets" -> t.packets = parseLong(key, v);
            case "bytes" -> t.bytes = parseLong(key, v);
            case "id" -> {
                if (!t.isIcmp() || t.icmpId >= 0) {
                    return false;
                }
                t.icmpId = parseInt(key, v);
            }
            case "zone-orig", "zone-reply" -> t.zone = parseInt(key, v);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void eventField(String key, String v, ConntrackMessage.Builder b) {
        switch (key) {
            case "id" -> b.id(parseLong(key, v));
            case "mark" -> b.mark(parseLong(key, v));
            case "zone" -> b.zone(parseInt(key, v));
            case "use" -> b.use(parseLong(key, v));
            case "helper" -> b.helper(v);
            case "secctx" -> b.secctx(v);
            case "labels" -> b.labels(new byte[KernelEventLayout.LABELS_BYTES]);
            case "delta-time", "timeout" -> {
                // derived by conntrack from start/stop, or already read
            }
            default -> throw new IllegalArgumentException("unknown field '" + key + "='");
        }
    }

    long ctimeNanos(String text) {
        try {
            return LocalDateTime.parse(text.trim().replaceAll("\\s+", " "), CTIME)
                            .atZone(zone)
                            .toEpochSecond()
                    * 1_000_000_000L;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("bad ktimestamp '" + text + "'", e);
        }
    }

    static boolean isNumber(String s) {
        return !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(Character::isDigit);
    }

    static int parseInt(String key, String v) {
        long x = parseLong(key, v);
        if (x > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + "=" + v + " out of range");
        }
        return (int) x;
    }

    static long parseLong(String key, String v) {
        if (!isNumber(v)) {
            throw new IllegalArgumentException(key + "=" + abbreviate(v) + " is not a number");
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " out of range", e);
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
