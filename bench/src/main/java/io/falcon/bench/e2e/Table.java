package io.falcon.bench.e2e;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** The one table a run prints: a row per hop (or figure) that a stage contributes. */
final class Table {
    /** {@code met} is empty when the row has no goal. */
    record Row(String hop, String p50, String p99, String goal, String met, String notes) {}

    private final List<Row> rows = new ArrayList<>();

    synchronized void add(Row row) {
        rows.add(row);
    }

    /** A latency row: met when its p99 is at most {@code p99GoalMs} (NaN: no goal). */
    void latency(String hop, Latencies l, double p99GoalMs, String notes) {
        String goal = Double.isNaN(p99GoalMs) ? "" : "p99 <= " + Latencies.fmt(p99GoalMs);
        String met = Double.isNaN(p99GoalMs) ? "" : l.size() == 0 ? "n/a" : l.p99() <= p99GoalMs ? "yes" : "NO";
        add(new Row(hop, Latencies.fmt(l.p50()), Latencies.fmt(l.p99()), goal, met, "n=" + l.size() + notes));
    }

    synchronized void print(PrintStream out) {
        String[] head = {"hop", "p50", "p99", "goal", "met?", "notes"};
        int[] width = new int[head.length];
        List<String[]> cells = new ArrayList<>();
        cells.add(head);
        for (Row r : rows) {
            cells.add(new String[] {r.hop(), r.p50(), r.p99(), r.goal(), r.met(), r.notes()});
        }
        for (String[] c : cells) {
            for (int i = 0; i < c.length; i++) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        for (int n = 0; n < cells.size(); n++) {
            StringBuilder line = new StringBuilder("| ");
            for (int i = 0; i < head.length; i++) {
                line.append(pad(cells.get(n)[i], width[i])).append(" | ");
            }
            out.println(line.toString().stripTrailing());
            if (n == 0) {
                StringBuilder rule = new StringBuilder("|");
                for (int w : width) {
                    rule.append("-".repeat(w + 2)).append("|");
                }
                out.println(rule);
            }
        }
    }

    private static String pad(String s, int w) {
        // CJK-free cells only: plain padding
        return s + " ".repeat(Math.max(0, w - s.length()));
    }
}
