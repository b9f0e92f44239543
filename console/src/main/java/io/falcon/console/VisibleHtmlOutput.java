package io.falcon.console;

import gg.jte.TemplateOutput;
import gg.jte.html.OwaspHtmlTemplateOutput;
import io.falcon.events.TerminalText;

/**
 * The templates' output: JTE's own HTML escaping of every value, after the value's control characters, bidi
 * overrides and line separators are shown as escapes ({@link TerminalText#visible}, the CLI's rule), so that a job id
 * or Message cannot reorder or hide text on the page either.
 */
final class VisibleHtmlOutput extends OwaspHtmlTemplateOutput {
    VisibleHtmlOutput(TemplateOutput out) {
        super(out);
    }

    @Override
    public void writeUserContent(String value) {
        super.writeUserContent(value == null ? null : TerminalText.visible(value));
    }
}
