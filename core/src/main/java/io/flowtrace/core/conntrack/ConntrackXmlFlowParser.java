package io.flowtrace.core.conntrack;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code <flow type="...">...</flow>} line of {@code conntrack -E -o xml} (libnetfilter_conntrack's
 * XML layout: meta direction="original"/"reply"/"independent"). The XML shows less than the text
 * form: no ICMP type/code/id, but ns-resolution start/stop. The flow elements are flat and
 * machine-written, so a few patterns read them without an XML parser per line.
 */
final class ConntrackXmlFlowParser {
    private static final Pattern FLOW = Pattern.compile("^<flow type=\"(new|update|destroy)\">(.*)</flow>$");
    private static final Pattern META =
            Pattern.compile("<meta direction=\"(original|reply|independent)\">(.*?)</meta>");
    private static final Pattern L3 = Pattern.compile("<layer3 protonum=\"(\\d+)\"");
    private static final Pattern L4 = Pattern.compile("<layer4 protonum=\"(\\d+)\"");

    ConntrackMessage.Builder parse(String line) {
        Matcher f = FLOW.matcher(line);
        if (!f.matches()) {
            throw new IllegalArgumentException(
                    "not a conntrack XML flow: '" + ConntrackLineParser.abbreviate(line) + "'");
        }
        ConntrackMessage.Builder b = ConntrackMessage.builder()
                .type(
                        switch (f.group(1)) {
                            case "new" -> EventType.NEW;
                            case "update" -> EventType.UPDATE;
                            default -> EventType.DESTROY;
                        });
        TupleText orig = null;
        TupleText reply = null;
        Matcher m = META.matcher(f.group(2));
        while (m.find()) {
            String body = m.group(2);
            switch (m.group(1)) {
                case "original" -> {
                    orig = tuple(body);
                    b.family(Integer.parseInt(required(L3, body, "layer3")));
                }
                case "reply" -> reply = tuple(body);
                default -> independent(body, orig, b);
            }
        }
        if (orig == null || reply == null) {
            throw new IllegalArgumentException("flow lacks an original or reply meta");
        }
        b.orig(orig.toTuple("original")).reply(reply.toTuple("reply"));
        b.origCounters(orig.counters()).replyCounters(reply.counters());
        return b;
    }

    private static TupleText tuple(String body) {
        TupleText t = new TupleText();
        t.proto = Integer.parseInt(required(L4, body, "layer4"));
        t.src = element(body, "src");
        t.dst = element(body, "dst");
        t.sport = intElement(body, "sport");
        t.dport = intElement(body, "dport");
        t.packets = longElement(body, "packets");
        t.bytes = longElement(body, "bytes");
        t.zone = intElement(body, "zone");
        return t;
    }

    private static void independent(String body, TupleText orig, ConntrackMessage.Builder b) {
        String state = element(body, "state");
        if (state != null && orig != null && orig.proto == CtaTypes.IPPROTO_TCP) {
            b.tcp(TcpProtoInfo.stateOnly(TcpProtoInfo.stateNumber(state)));
        }
        b.timeout(longElement(body, "timeout"));
        b.mark(longElement(body, "mark"));
        b.zone(intElement(body, "zone"));
        b.id(longElement(body, "id"));
        b.use(longElement(body, "use"));
        b.timestampStart(longElement(body, "start"));
        b.timestampStop(longElement(body, "stop"));
        String helper = element(body, "helper");
        if (helper != null) {
            b.helper(helper);
        }
        String secctx = element(body, "secctx");
        if (secctx != null) {
            b.secctx(secctx);
        }
        b.status((body.contains("<assured/>") ? 4 : 0) | (body.contains("<unreplied/>") ? 0 : 2));
    }

    private static String required(Pattern p, String body, String what) {
        Matcher m = p.matcher(body);
        if (!m.find()) {
            throw new IllegalArgumentException("missing " + what);
        }
        return m.group(1);
    }

    static String element(String body, String name) {
        int s = body.indexOf("<" + name + ">");
        if (s < 0) {
            return null;
        }
        int from = s + name.length() + 2;
        int e = body.indexOf("</" + name + ">", from);
        if (e < 0) {
            throw new IllegalArgumentException("unterminated <" + name + ">");
        }
        return body.substring(from, e);
    }

    static int intElement(String body, String name) {
        String v = element(body, name);
        return v == null ? -1 : ConntrackLineParser.parseInt(name, v);
    }

    static long longElement(String body, String name) {
        String v = element(body, name);
        return v == null ? -1 : ConntrackLineParser.parseLong(name, v);
    }
}
