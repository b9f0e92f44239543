package io.falcon.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * Who may read the console (plain Java: the request's credentials in, a verdict out). TOKEN: a bearer token from a
 * file ({@code Authorization: Bearer ...}, or the cookie a browser got by opening a page once with {@code ?token=}),
 * compared in constant time. IAP: the identity-aware proxy's {@code X-Goog-Authenticated-User-Email}, trusted only in
 * this mode, which is safe only when the proxy is the only way to reach the console (docs/security.md). NONE: every
 * request, for ./falcon-local on the loopback address.
 */
public final class Authenticator {
    public enum Mode {
        TOKEN,
        IAP,
        NONE
    }

    /** The identity-aware proxy's header with the signed-in user ("accounts.google.com:alice@example.com"). */
    public static final String IAP_HEADER = "X-Goog-Authenticated-User-Email";

    /** The cookie a browser keeps the token in (HttpOnly, SameSite=Strict). */
    public static final String COOKIE = "falcon_console_token";

    /** Shorter tokens are refused at start: a token is the only thing between the network and the pages. */
    public static final int MIN_TOKEN_LENGTH = 32;

    /** What a request carries that may identify it. */
    public record Credentials(
            Optional<String> authorization,
            Optional<String> cookie,
            Optional<String> queryToken,
            Optional<String> iapUser) {}

    /** Allowed (who, for the logs), or refused (why, for the 401's body: never the token). */
    public sealed interface Verdict {
        record Allowed(String who, boolean fromQuery) implements Verdict {}

        record Refused(String why) implements Verdict {}
    }

    private final Mode mode;
    private final Optional<byte[]> tokenDigest;

    public Authenticator(Mode mode, Optional<String> token) {
        this.mode = mode;
        if (mode == Mode.TOKEN) {
            String t = token.orElseThrow(
                    () -> new IllegalArgumentException("falcon.console.auth=token needs falcon.console.token-file"));
            if (t.strip().length() < MIN_TOKEN_LENGTH) {
                throw new IllegalArgumentException("the console's token must have at least " + MIN_TOKEN_LENGTH
                        + " characters (e.g. openssl rand -hex 32)");
            }
            this.tokenDigest = Optional.of(digest(t.strip()));
        } else {
            this.tokenDigest = Optional.empty();
        }
    }

    public Mode mode() {
        return mode;
    }

    public Verdict check(Credentials credentials) {
        return switch (mode) {
            case NONE -> new Verdict.Allowed("anyone (auth=none)", false);
            case IAP ->
                credentials
                        .iapUser()
                        .filter(u -> !u.isBlank())
                        .<Verdict>map(u -> new Verdict.Allowed(u.substring(u.indexOf(':') + 1), false))
                        .orElse(new Verdict.Refused("no " + IAP_HEADER + " header: reach the console through its"
                                + " identity-aware proxy"));
            case TOKEN -> {
                Optional<String> bearer = credentials
                        .authorization()
                        .filter(a -> a.regionMatches(true, 0, "Bearer ", 0, 7))
                        .map(a -> a.substring(7).strip());
                if (bearer.filter(this::matches).isPresent()
                        || credentials.cookie().filter(this::matches).isPresent()) {
                    yield new Verdict.Allowed("token holder", false);
                }
                if (credentials.queryToken().filter(this::matches).isPresent()) {
                    yield new Verdict.Allowed("token holder", true);
                }
                yield new Verdict.Refused("a bearer token is required (Authorization: Bearer TOKEN, or open the"
                        + " console once with ?token=TOKEN)");
            }
        };
    }

    /** Constant time in the token's content: both sides are hashed to the same length first. */
    private boolean matches(String given) {
        return MessageDigest.isEqual(digest(given.strip()), tokenDigest.orElseThrow());
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
