package io.falcon.cli;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import io.falcon.events.TerminalText;

/**
 * The CLI's log lines (falcon-cli-logback.xml, off unless FALCON_CLI_LOG_LEVEL is set) go to the same terminal as its
 * output: a library's message or exception that carries a JDBC URL or a tenant's string is written with its
 * passwords masked and its control characters shown as escapes (line breaks and tabs kept: a message or a stack
 * trace may span lines).
 */
public final class LogText {
    private LogText() {}

    /** %maskedMsg: the message, passwords masked, control characters but line breaks and tabs visible. */
    public static final class MaskedMessage extends MessageConverter {
        @Override
        public String convert(ILoggingEvent event) {
            return TerminalText.visibleLines(TerminalText.withoutPasswords(super.convert(event)));
        }
    }

    /** %maskedEx: the stack trace, passwords masked, control characters but line breaks and tabs visible. */
    public static final class MaskedException extends ThrowableProxyConverter {
        @Override
        protected String throwableProxyToString(IThrowableProxy proxy) {
            return TerminalText.visibleLines(TerminalText.withoutPasswords(super.throwableProxyToString(proxy)));
        }
    }
}
