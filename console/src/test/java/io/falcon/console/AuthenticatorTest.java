package io.falcon.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.console.Authenticator.Credentials;
import io.falcon.console.Authenticator.Verdict;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthenticatorTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef-console";

    private static Credentials with(String authorization, String cookie, String query, String iap) {
        return new Credentials(
                Optional.ofNullable(authorization),
                Optional.ofNullable(cookie),
                Optional.ofNullable(query),
                Optional.ofNullable(iap));
    }

    @Test
    void theTokenModeTakesTheBearerTheCookieOrTheQueryAndNothingElse() {
        Authenticator auth = new Authenticator(Authenticator.Mode.TOKEN, Optional.of(TOKEN + "\n"));
        assertThat(auth.check(with("Bearer " + TOKEN, null, null, null))).isInstanceOf(Verdict.Allowed.class);
        assertThat(auth.check(with("bearer " + TOKEN, null, null, null))).isInstanceOf(Verdict.Allowed.class);
        assertThat(auth.check(with(null, TOKEN, null, null))).isEqualTo(new Verdict.Allowed("token holder", false));
        assertThat(auth.check(with(null, null, TOKEN, null))).isEqualTo(new Verdict.Allowed("token holder", true));
        assertThat(auth.check(with(null, null, null, null))).isInstanceOf(Verdict.Refused.class);
        assertThat(auth.check(with("Bearer " + TOKEN + "x", null, null, null))).isInstanceOf(Verdict.Refused.class);
        assertThat(auth.check(with("Basic " + TOKEN, null, null, null))).isInstanceOf(Verdict.Refused.class);
        assertThat(auth.check(with(null, TOKEN.substring(1), null, null))).isInstanceOf(Verdict.Refused.class);
        // the proxy's header means nothing in token mode
        assertThat(auth.check(with(null, null, null, "accounts.google.com:eve@example.com")))
                .isInstanceOf(Verdict.Refused.class);
        Verdict refused = auth.check(with("Bearer nope", null, null, null));
        assertThat(((Verdict.Refused) refused).why()).doesNotContain(TOKEN);
    }

    @Test
    void aShortOrMissingTokenIsRefusedAtStart() {
        assertThatThrownBy(() -> new Authenticator(Authenticator.Mode.TOKEN, Optional.of("short")))
                .hasMessageContaining("at least 32");
        assertThatThrownBy(() -> new Authenticator(Authenticator.Mode.TOKEN, Optional.empty()))
                .hasMessageContaining("token-file");
    }

    @Test
    void theIapModeTrustsOnlyTheProxysHeader() {
        Authenticator auth = new Authenticator(Authenticator.Mode.IAP, Optional.empty());
        assertThat(auth.check(with(null, null, null, "accounts.google.com:alice@example.com")))
                .isEqualTo(new Verdict.Allowed("alice@example.com", false));
        assertThat(auth.check(with("Bearer " + TOKEN, TOKEN, TOKEN, null))).isInstanceOf(Verdict.Refused.class);
        assertThat(auth.check(with(null, null, null, " "))).isInstanceOf(Verdict.Refused.class);
    }
}
