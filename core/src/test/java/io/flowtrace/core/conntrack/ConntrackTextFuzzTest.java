package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.ConntrackRecordings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutations of the real {@code conntrack -E} text and XML lines of testdata/conntrack
 * (character flips, truncations, dropped and repeated tokens, absurd numbers, broken addresses,
 * spliced and random lines): {@link ConntrackLineParser#parseLine} returns an event, returns null
 * or throws its documented {@link ConntrackTextParseException}; nothing else escapes, no input
 * takes long or allocates much ({@link FuzzBudget}). -Dfuzz.iterations sets the count (10^5 here,
 * 10^6 with -Pfuzz-heavy).
 */
class ConntrackTextFuzzTest {
    private static final String ALPHABET = "0123456789abcdefxyz:.=[]<>/\"- \t_%SYNUPDATEipv46tcpudpflowmeta";
    private static final String[] ABSURD_NUMBERS = {
        "-1",
        "99999999999999999999",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "0x10",
        "1e9",
        "",
        "00000000000000000000001",
    };
    private static final String[] BAD_ADDRESSES = {
        "zz:1",
        "localhost:1",
        "example.com",
        "1.2.3",
        "1.2.3.4.5",
        "256.1.1.1",
        "::ffff:1.2.3.4",
        "fe80::1%eth0",
        "[::1]",
        ":::",
        "1::2::3",
        "%",
        "",
        "1.2.3.-4",
        "٣.1.1.1",
    };

    @Test
    void mutatedRealTextAndXmlLinesGiveAnEventNullOrTheTypedErrorOnly() {
        List<String> seeds = seeds();
        ConntrackLineParser parser = new ConntrackLineParser(KernelFeatures.stock(), ZoneOffset.UTC);
        SplittableRandom rnd = new SplittableRandom(20261130L);
        FuzzBudget budget = new FuzzBudget();
        List<String> escaped = new ArrayList<>();
        int events = 0;
        int rejected = 0;
        for (int i = 0; i < FuzzBudget.ITERATIONS; i++) {
            String line = mutate(seeds, rnd);
            budget.begin();
            try {
                if (parser.parseLine(line, i + 1) != null) {
                    events++;
                }
            } catch (ConntrackTextParseException expected) {
                assertThat(expected.lineNumber()).isEqualTo(i + 1);
                rejected++;
            } catch (RuntimeException | StackOverflowError e) {
                if (escaped.size() < 10) {
                    escaped.add(e + " on input " + i + ": " + line);
                }
            }
            budget.end(i);
        }
        assertThat(escaped)
                .as("exceptions other than ConntrackTextParseException")
                .isEmpty();
        assertThat(budget.worstNanos).as(budget.toString()).isLessThan(FuzzBudget.MAX_NANOS_PER_INPUT);
        assertThat(budget.worstBytes).as(budget.toString()).isLessThan(FuzzBudget.MAX_BYTES_PER_INPUT);
        // the mutations must exercise both outcomes, or the fuzz proves nothing
        assertThat(events).isPositive();
        assertThat(rejected).isPositive();
    }

    static List<String> seeds() {
        List<String> lines = new ArrayList<>();
        for (String name : ConntrackRecordings.TEXT_CASES) {
            try {
                for (String l :
                        Files.readAllLines(RecordedCase.DIR.resolve(name + ".events.txt"), StandardCharsets.UTF_8)) {
                    if (!l.isBlank()) {
                        lines.add(l);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return lines;
    }

    static String mutate(List<String> seeds, SplittableRandom rnd) {
        String s = seeds.get(rnd.nextInt(seeds.size()));
        int edits = 1 + rnd.nextInt(3);
        for (int k = 0; k < edits; k++) {
            s = switch (rnd.nextInt(9)) {
                case 0 -> flip(s, rnd);
                case 1 -> s.substring(0, rnd.nextInt(s.length() + 1));
                case 2 -> dropToken(s, rnd);
                case 3 -> repeatToken(s, rnd);
                case 4 -> replaceNumber(s, ABSURD_NUMBERS[rnd.nextInt(ABSURD_NUMBERS.length)], rnd);
                case 5 -> {
                    String other = seeds.get(rnd.nextInt(seeds.size()));
                    yield s.substring(0, rnd.nextInt(s.length() + 1))
                            + other.substring(rnd.nextInt(other.length() + 1));
                }
                case 6 -> randomLine(rnd);
                case 7 -> replaceAddress(s, BAD_ADDRESSES[rnd.nextInt(BAD_ADDRESSES.length)], rnd);
                default -> s.replaceFirst(rnd.nextBoolean() ? "</meta>" : "</(src|dst|sport|layer3)>", "");
            };
        }
        return s;
    }

    private static String flip(String s, SplittableRandom rnd) {
        if (s.isEmpty()) {
            return s;
        }
        char[] c = s.toCharArray();
        int at = rnd.nextInt(c.length);
        c[at] = rnd.nextInt(8) == 0 ? (char) rnd.nextInt(0x3000) : ALPHABET.charAt(rnd.nextInt(ALPHABET.length()));
        return new String(c);
    }

    private static String dropToken(String s, SplittableRandom rnd) {
        String[] t = s.split(" ", -1);
        int at = rnd.nextInt(t.length);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < t.length; i++) {
            if (i != at) {
                b.append(b.length() == 0 ? "" : " ").append(t[i]);
            }
        }
        return b.toString();
    }

    private static String repeatToken(String s, SplittableRandom rnd) {
        String[] t = s.split(" ", -1);
        int at = rnd.nextInt(t.length);
        return s + " " + t[at] + " " + t[at];
    }

    private static String replaceNumber(String s, String with, SplittableRandom rnd) {
        List<int[]> runs = new ArrayList<>();
        for (int i = 0; i < s.length(); ) {
            if (Character.isDigit(s.charAt(i))) {
                int j = i;
                while (j < s.length() && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                runs.add(new int[] {i, j});
                i = j;
            } else {
                i++;
            }
        }
        if (runs.isEmpty()) {
            return s;
        }
        int[] r = runs.get(rnd.nextInt(runs.size()));
        return s.substring(0, r[0]) + with + s.substring(r[1]);
    }

    private static String replaceAddress(String s, String with, SplittableRandom rnd) {
        String key = rnd.nextBoolean() ? "src" : "dst";
        String text = s.replaceFirst("(" + key + "=)[^ ]+", "$1" + java.util.regex.Matcher.quoteReplacement(with));
        return text.replaceFirst("(<" + key + ">)[^<]*", "$1" + java.util.regex.Matcher.quoteReplacement(with));
    }

    private static String randomLine(SplittableRandom rnd) {
        char[] c = new char[rnd.nextInt(300)];
        for (int i = 0; i < c.length; i++) {
            c[i] = rnd.nextInt(4) == 0 ? (char) rnd.nextInt(0x110) : ALPHABET.charAt(rnd.nextInt(ALPHABET.length()));
        }
        return new String(c);
    }
}
