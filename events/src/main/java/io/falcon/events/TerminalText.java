package io.falcon.events;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the CLI writes to an operator's terminal (and what the console shows in a browser). Job ids, actors, names, messages, specs and cluster fields come from
 * tenants (rows of the jobs table, records of the topics): {@link #visible} shows their control characters as escapes
 * instead of letting the terminal run them (clear the screen, plant a hyperlink, overwrite a line with a carriage
 * return, reverse text with a bidi override). {@link #withoutPasswords} masks the password of a JDBC URL (user info
 * and any password parameter) wherever one could be shown. {@link #error} is both, for every error line.
 */
public final class TerminalText {
    /** What stands for a masked password. */
    public static final String MASK = "***";

    /** jdbc:mysql://user:secret@host/db: the user info's password (up to its last '@' before the path). */
    private static final Pattern USER_INFO_PASSWORD = Pattern.compile("(://[^/?#@:\\s]*):([^/?#\\s]*)@");
    /**
     * password=, Password=, password1=, trustStorePassword=, pwd= up to the next separator of URLs and lists (a colon
     * only where a sentence goes on after it: "...?password=x: Access denied").
     */
    private static final Pattern PASSWORD_PARAMETER =
            Pattern.compile("(?i)(\\b[a-z0-9_.-]*(?:password|passwd|pwd)[a-z0-9_.-]*)=((?:[^&;,()\\s:]|:(?!\\s|$))*)");

    private TerminalText() {}

    /**
     * The text with every character a terminal would act on shown as an escape ({@code \n}, {@code \r}, {@code \t},
     * else a backslash, u and four hex digits: ESC shows as \\u001b): C0 controls (tab and line breaks too, as every
     * value is printed on its own line and a line break in a value could forge one), DEL, C1 controls, bidi
     * embeddings, overrides and isolates, and the Unicode line and paragraph separators. Everything else, any script
     * or emoji, is left as it is.
     */
    public static String visible(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!actedOnByTerminals(c)) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            out.append(escape(c));
        }
        return out == null ? text : out.toString();
    }

    /**
     * {@link #visible} for text of several lines, such as a log message or a stack trace: line breaks and tabs are
     * kept, every other character a terminal acts on is shown as an escape.
     */
    public static String visibleLines(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            out.append(c == '\n' || c == '\t' || !actedOnByTerminals(c) ? String.valueOf(c) : escape(c));
        }
        return out.toString();
    }

    /** The text with the password of every JDBC URL (user info, password parameters) in it replaced by ***. */
    public static String withoutPasswords(String text) {
        if (text == null) {
            return "";
        }
        String masked = USER_INFO_PASSWORD
                .matcher(text)
                .replaceAll(m -> Matcher.quoteReplacement(m.group(1) + ":") + MASK + "@");
        return PASSWORD_PARAMETER.matcher(masked).replaceAll(m -> Matcher.quoteReplacement(m.group(1)) + "=" + MASK);
    }

    /**
     * The text with the password of every JDBC URL in it masked, and every occurrence of the given passwords too: a
     * driver's message about a URL may quote a piece of it without its syntax ("Incorrect port value :
     * secret@host").
     */
    public static String withoutPasswords(String text, Collection<String> passwords) {
        String masked = withoutPasswords(text);
        for (String password : passwords) {
            if (!password.isEmpty()) {
                masked = masked.replace(password, MASK);
            }
        }
        return masked;
    }

    /** The passwords a JDBC URL carries (user info, password parameters), as written and percent-decoded. */
    public static Set<String> passwordsOf(String jdbcUrl) {
        Set<String> passwords = new LinkedHashSet<>();
        if (jdbcUrl == null) {
            return passwords;
        }
        Matcher userInfo = USER_INFO_PASSWORD.matcher(jdbcUrl);
        while (userInfo.find()) {
            passwords.add(userInfo.group(2));
        }
        Matcher parameter = PASSWORD_PARAMETER.matcher(jdbcUrl);
        while (parameter.find()) {
            passwords.add(parameter.group(2));
        }
        for (String password : List.copyOf(passwords)) {
            try {
                passwords.add(URLDecoder.decode(password, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException notEncoded) {
                // as written only
            }
        }
        passwords.remove("");
        return passwords;
    }

    /** One error line: passwords masked, control characters visible. */
    public static String error(String text) {
        return visible(withoutPasswords(text));
    }

    public static boolean actedOnByTerminals(char c) {
        return c < 0x20 // C0: ESC, BEL, CR, LF, TAB, backspace...
                || (c >= 0x7f && c <= 0x9f) // DEL and C1 (0x9b is a one-byte CSI)
                || c == '\u061c' // Arabic letter mark
                || c == '\u200e'
                || c == '\u200f' // left-to-right and right-to-left marks
                || (c >= '\u202a' && c <= '\u202e') // embeddings and overrides
                || (c >= '\u2066' && c <= '\u2069') // isolates
                || c == '\u2028'
                || c == '\u2029'; // line and paragraph separators
    }

    private static String escape(char c) {
        return switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> String.format("\\u%04x", (int) c);
        };
    }

    /**
     * For JSON output: Jackson escapes C0 controls in strings already; these escapes add DEL, C1 and the bidi and
     * separator characters, so that JSON printed to a terminal is as inert as the text output (a JSON reader gets
     * the same strings).
     */
    public static final CharacterEscapes JSON_ESCAPES = new JsonEscapes();

    private static final class JsonEscapes extends CharacterEscapes {
        private final int[] ascii;

        JsonEscapes() {
            ascii = CharacterEscapes.standardAsciiEscapesForJSON();
            ascii[0x7f] = CharacterEscapes.ESCAPE_CUSTOM;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch <= Character.MAX_VALUE && actedOnByTerminals((char) ch)
                    ? new SerializedString(String.format("\\u%04x", ch))
                    : null;
        }
    }
}
