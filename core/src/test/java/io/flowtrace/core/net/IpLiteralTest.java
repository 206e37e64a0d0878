package io.flowtrace.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class IpLiteralTest {
    @Test
    void parsesNumericLiteralsOfBothFamilies() {
        assertThat(IpLiteral.parse("10.77.1.2")).containsExactly(10, 77, 1, 2);
        byte[] v6 = IpLiteral.parse("fd00::1");
        assertThat(v6).hasSize(16);
        assertThat(v6[0]).isEqualTo((byte) 0xfd);
        assertThat(v6[15]).isEqualTo((byte) 1);
    }

    /**
     * Regression (ConntrackTextFuzzTest): unbracketed, InetAddress sends text with ':' that is not a
     * valid literal to the resolver (strace shows /etc/resolv.conf read for "zz:1"). The JDK's
     * literal parser answers "invalid IPv6 address literal"; the resolver answers "Name or service
     * not known" or times out.
     */
    @Test
    void rejectsNonLiteralsWithColonsWithoutAskingTheResolver() {
        for (String text : new String[] {"zz:1", "1::2::3", "localhost:1", "g::1"}) {
            assertThatThrownBy(() -> IpLiteral.parse(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(text)
                    .cause()
                    .isInstanceOf(UnknownHostException.class)
                    .hasMessageContaining("invalid IPv6 address literal");
        }
        assertThatThrownBy(() -> IpLiteral.parse("[::1]")).isInstanceOf(IllegalArgumentException.class);
    }
}
