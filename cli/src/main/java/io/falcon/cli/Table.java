package io.falcon.cli;

import io.falcon.events.TerminalText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: columns padded to their widest cell, the last column left unpadded. Cells come from tenants:
 * their control characters are shown as escapes ({@link TerminalText#visible}).
 */
final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... header) {
        this.header = List.of(header);
    }

    Table row(String... cells) {
        List<String> row = new ArrayList<>();
        for (String cell : cells) {
            row.add(TerminalText.visible(cell));
        }
        rows.add(row);
        return this;
    }

    int size() {
        return rows.size();
    }

    void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        line(out, header, widths);
        rows.forEach(row -> line(out, row, widths));
        out.flush();
    }

    private static void line(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            b.append(cell);
            if (i < cells.size() - 1) {
                b.append(" ".repeat(widths[i] - cell.length() + 2));
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
