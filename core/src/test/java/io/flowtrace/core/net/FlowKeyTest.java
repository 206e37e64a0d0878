package io.flowtrace.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one text form of vantage points, endpoints and flow keys, written and read back. */
class FlowKeyTest {
    private static final VantagePoint VANTAGE = new VantagePoint("host-a", "eth0");

    @Test
    void writesTheKeyAsVantageThenTheLowerEndpointThenTheHigher() {
        Endpoint client = new Endpoint(new byte[] {10, 0, 0, 9}, 40000);
        Endpoint server = new Endpoint(new byte[] {10, 0, 0, 1}, 443);
        // 10.0.0.1 < 10.0.0.9 whatever the ports: the server's endpoint comes first
        assertThat(FlowKey.of(VANTAGE, client, server).canonical())
                .isEqualTo("host-a/eth0|10.0.0.1:443|10.0.0.9:40000");
        assertThat(FlowKey.of(VANTAGE, server, client)).isEqualTo(FlowKey.of(VANTAGE, client, server));
    }

    @Test
    void readsBackAKeyWhoseAgentIdContainsSlashesAndBars() {
        // agent ids are user-given: only the interface name (no '/', Linux dev_valid_name) and the
        // endpoints (no '|') are free of the separators, so both splits go from the right
        VantagePoint odd = new VantagePoint("rack|7/host", "veth-c");
        FlowKey key = FlowKey.of(
                odd,
                new Endpoint(new byte[] {(byte) 192, (byte) 168, 1, 2}, 1),
                new Endpoint(new byte[] {(byte) 192, (byte) 168, 1, 2}, 65535));
        assertThat(key.canonical()).isEqualTo("rack|7/host/veth-c|192.168.1.2:1|192.168.1.2:65535");
        assertThat(FlowKey.parse(key.canonical())).isEqualTo(key);
        assertThat(FlowKey.parse(key.canonical()).vantage()).isEqualTo(odd);
    }

    @Test
    void readsBackIpv6KeysInTheRfc5952Form() {
        byte[] low = new byte[16];
        low[0] = (byte) 0xfd;
        low[15] = 1;
        byte[] high = low.clone();
        high[15] = 2;
        FlowKey key = FlowKey.of(VANTAGE, new Endpoint(high, 80), new Endpoint(low, 5000));
        assertThat(key.canonical()).isEqualTo("host-a/eth0|[fd00::1]:5000|[fd00::2]:80");
        assertThat(FlowKey.parse("host-a/eth0|[fd00::1]:5000|[fd00::2]:80")).isEqualTo(key);
    }

    @Test
    void readsBackAnIpv4MappedIpv6EndpointThatJavaWritesAsDottedQuad() {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 10;
        mapped[15] = 7;
        Endpoint e = new Endpoint(mapped, 22);
        assertThat(e).hasToString("[10.0.0.7]:22");
        assertThat(Endpoint.parse(e.toString())).isEqualTo(e);
    }

    @Test
    void everyRandomKeySurvivesItsTextForm() {
        SplittableRandom random = new SplittableRandom(21);
        for (int i = 0; i < 2000; i++) {
            byte[] a = new byte[random.nextBoolean() ? 4 : 16];
            byte[] b = new byte[a.length];
            for (int j = 0; j < a.length; j++) {
                // few distinct byte values, so runs of zero groups (the "::" case) are common
                a[j] = (byte) (random.nextInt(3) == 0 ? random.nextInt(256) : 0);
                b[j] = (byte) (random.nextInt(3) == 0 ? random.nextInt(256) : 0);
            }
            FlowKey key = FlowKey.of(
                    new VantagePoint("agent-" + i, "if" + (i % 5)),
                    new Endpoint(a, random.nextInt(65536)),
                    new Endpoint(b, random.nextInt(65536)));
            assertThat(FlowKey.parse(key.canonical())).as(key.canonical()).isEqualTo(key);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "no-bars",
                "a/b|10.0.0.1:1",
                "novantage|10.0.0.1:1|10.0.0.2:2",
                "a/b|10.0.0.2:2|10.0.0.1:1",
                "a/b|10.0.0.1|10.0.0.2:2",
                "a/b|10.0.0.1:1|10.0.0.2:65536",
                "a/b|10.0.0.1:1|10.0.0.2:+2",
                "a/b|10.0.0.1:1|fd00::2:2",
                "a/b|10.0.0.1:1|[]:2",
                "a/b|10.0.0.1:1|host.example:2",
                "a/b|10.0.0.1:1|[fd00::zz]:2"
            })
    void rejectsTextThatIsNotACanonicalKeyWithAReason(String text) {
        assertThatThrownBy(() -> FlowKey.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("null");
    }

    @Test
    void splitsAVantageAtItsLastSlash() {
        assertThat(VantagePoint.parse("dc1/host-b/ens3")).isEqualTo(new VantagePoint("dc1/host-b", "ens3"));
        assertThat(new VantagePoint("dc1/host-b", "ens3")).hasToString("dc1/host-b/ens3");
        assertThat(VantagePoint.text("a", "if0")).isEqualTo("a/if0");
        assertThatThrownBy(() -> VantagePoint.parse("local")).hasMessageContaining("not agent/interface");
    }
}
