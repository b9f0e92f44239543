package io.falcon.bench.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a chaos run did and found: its facts (jobs, kills, restarts, duration), every check with each violation (the
 * job, pool or row that broke it, what was seen and what was expected, and the evidence gathered for it: the row's
 * history, fleet-sim's record of it, the process log lines naming it), and the monkey's acts in order. Printed on
 * standard output (violations capped per check) and written whole to {@code DATA_DIR/chaos-report.txt} and
 * {@code DATA_DIR/chaos-report.json}, so that a failed run can be read after the fact.
 */
public record ChaosReport(Map<String, String> facts, List<Check> checks, List<Monkey.Act> acts) {

    public static final String TEXT_FILE = "chaos-report.txt";
    public static final String JSON_FILE = "chaos-report.json";

    /** One thing that broke a check. {@code job} names the job it is about, when it is about one. */
    public record Violation(String subject, Optional<String> job, String seen, String expected, List<String> evidence) {

        public Violation {
            evidence = List.copyOf(evidence);
        }

        public static Violation of(String subject, String seen, String expected) {
            return new Violation(subject, Optional.empty(), seen, expected, List.of());
        }

        public static Violation ofJob(String subject, String job, String seen, String expected) {
            return new Violation(subject, Optional.of(job), seen, expected, List.of());
        }

        public Violation withEvidence(List<String> more) {
            List<String> all = new ArrayList<>(evidence);
            all.addAll(more);
            return new Violation(subject, job, seen, expected, all);
        }

        String line() {
            return subject + ": seen " + seen + ", expected " + expected;
        }
    }

    /** One check of the run: its name, and what violated it (nothing when it passed). */
    public record Check(String name, List<Violation> violations) {
        public Check {
            violations = List.copyOf(violations);
        }

        public boolean passed() {
            return violations.isEmpty();
        }
    }

    public ChaosReport {
        facts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(facts));
        checks = List.copyOf(checks);
        acts = List.copyOf(acts);
    }

    public long passed() {
        return checks.stream().filter(Check::passed).count();
    }

    public long failed() {
        return checks.size() - passed();
    }

    /**
     * The report as text: facts, then each check (PASS/FAIL) with its violations and their evidence, then the acts,
     * then "N passed, M failed". At most {@code perCheck} violations per check (the rest counted), evidence only when
     * {@code withEvidence}.
     */
    public String text(int perCheck, boolean withEvidence, Optional<Path> fullReport) {
        StringBuilder b = new StringBuilder();
        facts.forEach((k, v) -> b.append(k).append(": ").append(v).append('\n'));
        b.append('\n');
        for (Check check : checks) {
            b.append(check.passed() ? "PASS" : "FAIL")
                    .append("  ")
                    .append(check.name())
                    .append('\n');
            List<Violation> shown = check.violations().stream().limit(perCheck).toList();
            for (Violation v : shown) {
                b.append("        ").append(v.line()).append('\n');
                if (withEvidence) {
                    v.evidence().forEach(e -> b.append("            ").append(e).append('\n'));
                }
            }
            if (check.violations().size() > shown.size()) {
                b.append("        ... ")
                        .append(check.violations().size() - shown.size())
                        .append(" more")
                        .append(fullReport.map(p -> " (all in " + p + ")").orElse(""))
                        .append('\n');
            }
        }
        if (withEvidence && !acts.isEmpty()) {
            b.append('\n').append("chaos acts:").append('\n');
            acts.forEach(a ->
                    b.append("  ").append(a.at()).append(' ').append(a.what()).append('\n'));
        }
        b.append('\n')
                .append(passed())
                .append(" passed, ")
                .append(failed())
                .append(" failed")
                .append('\n');
        return b.toString();
    }

    /** The whole report as one JSON object: facts, checks (with passed and violations), acts, passed, failed. */
    public String json() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("facts", facts);
        List<Map<String, Object>> checkList = new ArrayList<>();
        for (Check check : checks) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("name", check.name());
            c.put("passed", check.passed());
            List<Map<String, Object>> violations = new ArrayList<>();
            for (Violation v : check.violations()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("subject", v.subject());
                v.job().ifPresent(j -> m.put("job", j));
                m.put("seen", v.seen());
                m.put("expected", v.expected());
                m.put("evidence", v.evidence());
                violations.add(m);
            }
            c.put("violations", violations);
            checkList.add(c);
        }
        root.put("checks", checkList);
        root.put(
                "acts",
                acts.stream()
                        .map(a -> Map.of("at", a.at().toString(), "what", a.what()))
                        .toList());
        root.put("passed", passed());
        root.put("failed", failed());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the whole report, as text and as JSON, into {@code dataDir}; returns the text file. */
    public Path writeTo(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
            Path text = dataDir.resolve(TEXT_FILE);
            Files.writeString(text, text(Integer.MAX_VALUE, true, Optional.empty()), StandardCharsets.UTF_8);
            Files.writeString(dataDir.resolve(JSON_FILE), json(), StandardCharsets.UTF_8);
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chaos report into " + dataDir, e);
        }
    }
}
