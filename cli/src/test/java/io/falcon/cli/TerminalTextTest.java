package io.falcon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.core.type.TypeReference;
import io.falcon.events.Json;
import io.falcon.events.TerminalText;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** What reaches an operator's terminal: tenants' strings made inert, JDBC URLs without their passwords. */
class TerminalTextTest {
    static final String CLEAR_SCREEN = "\u001b[2J\u001b[H";
    static final String HYPERLINK = "\u001b]8;;https://evil.example/login\u0007click here\u001b]8;;\u0007";
    static final String OVERWRITE = "Failed/OOMKilled\rSucceeded       ";

    /** Whether the text holds a character a terminal would act on (line breaks between lines aside). */
    static boolean hasTerminalControls(String text) {
        return text.chars().anyMatch(c -> c != '\n' && TerminalText.actedOnByTerminals((char) c));
    }

    @Test
    void escapeSequencesHyperlinksAndCarriageReturnsAreShownNotRun() {
        assertThat(TerminalText.visible("name" + CLEAR_SCREEN)).isEqualTo("name\\u001b[2J\\u001b[H");
        assertThat(TerminalText.visible(HYPERLINK))
                .isEqualTo("\\u001b]8;;https://evil.example/login\\u0007click here\\u001b]8;;\\u0007");
        assertThat(TerminalText.visible(OVERWRITE)).isEqualTo("Failed/OOMKilled\\rSucceeded       ");
        // a line break or tab in a value would forge a line or a column of the CLI's output
        assertThat(TerminalText.visible("resnet\nstatus: Succeeded\tx")).isEqualTo("resnet\\nstatus: Succeeded\\tx");
        // DEL, C1 (0x9b is a one-byte CSI), bidi override and isolate, line separator
        assertThat(TerminalText.visible("a\u007fb\u009b2Jc\u202egnp.exe\u2066d\u2028e"))
                .isEqualTo("a\\u007fb\\u009b2Jc\\u202egnp.exe\\u2066d\\u2028e");
    }

    @Test
    void everyOtherCharacterIsLeftAsItIs() {
        String text = "前面有 2 个任务 (alice, bob) — café 🚀 {\"image\":\"a\\\\b\"} 'quoted' $(x) %s \\u001b";
        assertThat(TerminalText.visible(text)).isSameAs(text);
        assertThat(TerminalText.visible(null)).isEmpty();
    }

    @Property(tries = 500)
    void nothingATerminalActsOnSurvivesAndCleanTextIsUnchanged(@ForAll String text) {
        String shown = TerminalText.visible(text);
        assertThat(shown.chars().noneMatch(c -> TerminalText.actedOnByTerminals((char) c)))
                .as("controls left in " + shown)
                .isTrue();
        if (text.chars().noneMatch(c -> TerminalText.actedOnByTerminals((char) c))) {
            assertThat(shown).isEqualTo(text);
        }
    }

    @Test
    void theUserInfoPasswordOfAJdbcUrlIsMasked() {
        assertThat(TerminalText.withoutPasswords("jdbc:mysql://falcon:s3cret@db.internal:3306/falcon"))
                .isEqualTo("jdbc:mysql://falcon:***@db.internal:3306/falcon");
        // an unencoded '@' in the password: everything up to the last '@' before the host goes
        assertThat(TerminalText.withoutPasswords("jdbc:mariadb://falcon:p@ss@w0rd@[::1]:3306/falcon?ssl=true"))
                .isEqualTo("jdbc:mariadb://falcon:***@[::1]:3306/falcon?ssl=true");
        assertThat(TerminalText.withoutPasswords("cannot reach the database at jdbc:mariadb://u:x@h/db: refused"))
                .isEqualTo("cannot reach the database at jdbc:mariadb://u:***@h/db: refused");
    }

    @Test
    void passwordParametersAreMaskedWhateverTheirCaseOrPrefix() {
        assertThat(TerminalText.withoutPasswords(
                        "jdbc:mariadb://db:3306/falcon?user=falcon&password=s3cret&sslMode=verify-full"))
                .isEqualTo("jdbc:mariadb://db:3306/falcon?user=falcon&password=***&sslMode=verify-full");
        assertThat(TerminalText.withoutPasswords("jdbc:mysql://db/falcon?Password=a;password1=b&password2=c"))
                .isEqualTo("jdbc:mysql://db/falcon?Password=***;password1=***&password2=***");
        assertThat(TerminalText.withoutPasswords(
                        "jdbc:mariadb://db/f?trustStorePassword=t&keyStorePassword=k&pwd=p&serverSslCert=/c.pem"))
                .isEqualTo("jdbc:mariadb://db/f?trustStorePassword=***&keyStorePassword=***&pwd=***"
                        + "&serverSslCert=/c.pem");
        assertThat(TerminalText.withoutPasswords("jdbc:mysql://address=(host=db)(port=3306)(password=x)/falcon"))
                .isEqualTo("jdbc:mysql://address=(host=db)(port=3306)(password=***)/falcon");
    }

    @Test
    void urlsWithoutAPasswordAreLeftAsTheyAreAndMaskingTwiceChangesNothing() {
        for (String url : new String[] {
            "jdbc:mariadb://127.0.0.1:1/falcon",
            "jdbc:mysql://[::1]:3306/falcon?user=falcon&sslMode=REQUIRED",
            "jdbc:mariadb://db:3306?user=ops@example.com",
            "Access denied for user 'falcon'@'10.0.0.5' (using password: YES)"
        }) {
            assertThat(TerminalText.withoutPasswords(url)).isEqualTo(url);
        }
        String masked = TerminalText.withoutPasswords("jdbc:mysql://u:p@h/db?password=q");
        assertThat(TerminalText.withoutPasswords(masked)).isEqualTo(masked).doesNotContain(":p@", "=q");
    }

    @Test
    void thePasswordsOfAUrlAreMaskedWhereverAMessageQuotesThem() {
        String url = "jdbc:mariadb://falcon:p%40ss@db:3306/falcon?password=second&sslMode=disable";
        assertThat(TerminalText.passwordsOf(url)).containsExactly("p%40ss", "second", "p@ss");
        // MariaDB's driver reads user info as host:port and quotes the rest
        assertThat(TerminalText.withoutPasswords(
                        "Incorrect port value : p@ss@db:3306; also p%40ss, second", TerminalText.passwordsOf(url)))
                .isEqualTo("Incorrect port value : ***@db:3306; also ***, ***");
        assertThat(TerminalText.passwordsOf("jdbc:mariadb://db:3306/falcon?user=falcon"))
                .isEmpty();
    }

    @Test
    void severalLinesKeepTheirLineBreaksAndTabsOnly() {
        assertThat(TerminalText.visibleLines("values:\n\tbootstrap = x\u001b[2J\r\n"))
                .isEqualTo("values:\n\tbootstrap = x\\u001b[2J\\r\n");
    }

    @Test
    void aSentenceAfterAPasswordParameterKeepsItsColon() {
        assertThat(TerminalText.withoutPasswords("at jdbc:mariadb://h/db?password=p2: Access denied"))
                .isEqualTo("at jdbc:mariadb://h/db?password=***: Access denied");
        assertThat(TerminalText.withoutPasswords("jdbc:mariadb://h/db?password=a:b:c&x=1"))
                .isEqualTo("jdbc:mariadb://h/db?password=***&x=1");
    }

    @Test
    void anErrorLineIsMaskedAndInert() {
        assertThat(TerminalText.error("no job 'x\u001b[2J' at jdbc:mysql://u:pw@h/db"))
                .isEqualTo("no job 'x\\u001b[2J' at jdbc:mysql://u:***@h/db");
    }

    @Test
    void jsonOutputEscapesWhatATerminalActsOnAndReadsBackTheSame() throws Exception {
        Map<String, String> hostile = Map.of(
                "message", OVERWRITE + CLEAR_SCREEN, "name", HYPERLINK, "actor", "a\u009b2J\u202eb\u007f", "ok", "日本語");
        String json = Json.mapper()
                .writerWithDefaultPrettyPrinter()
                .with(TerminalText.JSON_ESCAPES)
                .writeValueAsString(hostile);
        assertThat(hasTerminalControls(json)).as(json).isFalse();
        assertThat(json).contains("\\u009b", "\\u202e", "\\u007f", "日本語");
        assertThat(Json.mapper().readValue(json, new TypeReference<Map<String, String>>() {}))
                .isEqualTo(hostile);
    }

    @Test
    void theClisLogLinesMaskPasswordsInMessagesAndExceptions() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        context.putProperty("FALCON_CLI_LOG_LEVEL", "INFO");
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            configurator.doConfigure(getClass().getResource("/falcon-cli-logback.xml"));
            context.getLogger("org.mariadb.jdbc.Driver")
                    .warn(
                            "connecting to {} for {}",
                            "jdbc:mariadb://falcon:hunter2@db/falcon?password=hunter3",
                            "job\u001b[2J",
                            new SQLException("No suitable driver found for jdbc:foo://a:hunter4@h/db"));
        } finally {
            System.setErr(stderr);
            context.stop();
        }
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .as("logback's own warnings and errors about the configuration")
                .allSatisfy(status -> assertThat(status.getLevel()).isEqualTo(ch.qos.logback.core.status.Status.INFO));
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("WARN ", "jdbc:mariadb://falcon:***@db/falcon?password=***", "job\\u001b[2J")
                .contains("java.sql.SQLException: No suitable driver found for jdbc:foo://a:***@h/db")
                .doesNotContain("hunter", "\u001b");
        // the exception's stack trace keeps its lines
        assertThat(log).containsPattern("(?m)^\tat io\\.falcon\\.cli\\.TerminalTextTest\\.");
    }
}
