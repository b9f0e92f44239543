package io.falcon.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.falcon.fleetsim.FleetRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a chaos run kept about one job, gathered for the report of a violation that names it: the statuses its row
 * showed (with when the sampler first saw each), every request fleet-sim served for it, and the lines of every
 * process's log that name it, merged in time order.
 */
final class Evidence {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]+");

    private final Function<String, List<RowSampler.Seen>> rowHistory;
    private final List<FleetRecord.Entry> record;
    private final Map<String, List<LogLine>> logLines;
    private final int maxLogLines;

    /** A log line naming a job: when (from its JSON timestamp, or the file's last one), which process, the text. */
    record LogLine(Instant at, String process, String text) {
        @Override
        public String toString() {
            return "log " + process + " " + text;
        }
    }

    private Evidence(
            Function<String, List<RowSampler.Seen>> rowHistory,
            List<FleetRecord.Entry> record,
            Map<String, List<LogLine>> logLines,
            int maxLogLines) {
        this.rowHistory = rowHistory;
        this.record = record;
        this.logLines = logLines;
        this.maxLogLines = maxLogLines;
    }

    /**
     * Gathers the evidence of {@code jobs}: their row history from {@code rowHistory}, the record's entries, and the
     * lines of {@code logDir}'s {@code *.log} files that name one of them (at most {@code maxLogLines} each).
     */
    static Evidence gather(
            Set<String> jobs,
            Function<String, List<RowSampler.Seen>> rowHistory,
            List<FleetRecord.Entry> record,
            Path logDir,
            int maxLogLines)
            throws IOException {
        return new Evidence(rowHistory, record, logLinesNaming(jobs, logDir), maxLogLines);
    }

    /** Evidence lines for one job: "row ...", then "fleet ...", then "log ..." in time order. */
    List<String> of(String job) {
        List<String> out = new ArrayList<>();
        rowHistory.apply(job).forEach(s -> out.add("row " + s));
        record.stream()
                .filter(e -> e.job().filter(job::equals).isPresent())
                .forEach(e -> out.add(
                        "fleet " + e.at() + " " + e.kind() + " " + e.outcome() + " " + e.cluster() + "/" + e.name()));
        List<LogLine> lines = logLines.getOrDefault(job, List.of());
        lines.stream().limit(maxLogLines).forEach(l -> out.add(l.toString()));
        if (lines.size() > maxLogLines) {
            out.add("log ... " + (lines.size() - maxLogLines) + " more lines name " + job);
        }
        return out;
    }

    /** The violations, each naming a job given that job's evidence. */
    List<ChaosReport.Violation> attachTo(List<ChaosReport.Violation> violations) {
        return violations.stream()
                .map(v -> v.job().map(j -> v.withEvidence(of(j))).orElse(v))
                .toList();
    }

    static Map<String, List<LogLine>> logLinesNaming(Set<String> jobs, Path logDir) throws IOException {
        Map<String, List<LogLine>> out = new HashMap<>();
        if (jobs.isEmpty() || !Files.isDirectory(logDir)) {
            return out;
        }
        List<Path> logs;
        try (Stream<Path> files = Files.list(logDir)) {
            logs = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
        }
        for (Path log : logs) {
            String process = log.getFileName().toString().replaceFirst("\\.log$", "");
            Instant last = Instant.EPOCH;
            try (BufferedReader reader = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    List<String> named = named(line, jobs);
                    if (named.isEmpty()) {
                        continue;
                    }
                    Optional<Rendered> rendered = render(line);
                    Instant at = rendered.map(Rendered::at).orElse(last);
                    last = at;
                    String text = rendered.map(Rendered::text).orElse(line);
                    for (String job : named) {
                        out.computeIfAbsent(job, j -> new ArrayList<>()).add(new LogLine(at, process, text));
                    }
                }
            }
        }
        out.values().forEach(l -> l.sort(Comparator.comparing(LogLine::at)));
        return out;
    }

    /**
     * The jobs a line names: a job id is a run of whole '-'-separated parts of a token, so job-12 is named by
     * falcon-job-12 and falcon-job-12-0 but not by job-123.
     */
    static List<String> named(String line, Set<String> jobs) {
        List<String> named = new ArrayList<>();
        Matcher m = TOKEN.matcher(line);
        while (m.find()) {
            String token = m.group();
            List<Integer> starts = new ArrayList<>();
            List<Integer> ends = new ArrayList<>();
            starts.add(0);
            for (int i = 0; i < token.length(); i++) {
                if (token.charAt(i) == '-') {
                    ends.add(i);
                    starts.add(i + 1);
                }
            }
            ends.add(token.length());
            for (int from : starts) {
                for (int to : ends) {
                    if (to > from) {
                        String candidate = token.substring(from, to);
                        if (jobs.contains(candidate) && !named.contains(candidate)) {
                            named.add(candidate);
                        }
                    }
                }
            }
        }
        return named;
    }

    private record Rendered(Instant at, String text) {}

    /** A JSON log line as "TIME LEVEL logger: message {mdc}"; empty when the line is not one. */
    private static Optional<Rendered> render(String line) {
        if (!line.startsWith("{")) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(line);
            if (!node.has("timestamp")) {
                return Optional.empty();
            }
            Instant at = Instant.ofEpochMilli(node.get("timestamp").asLong());
            String logger = node.path("loggerName").asText("");
            StringBuilder text = new StringBuilder()
                    .append(at)
                    .append(' ')
                    .append(node.path("level").asText(""))
                    .append(' ')
                    .append(logger.substring(logger.lastIndexOf('.') + 1))
                    .append(": ")
                    .append(node.path("formattedMessage").asText(""));
            JsonNode mdc = node.path("mdc");
            if (mdc.isObject() && mdc.size() > 0) {
                text.append(' ').append(mdc);
            }
            JsonNode throwable = node.path("throwable");
            if (throwable.isObject()) {
                text.append(" [")
                        .append(throwable.path("className").asText(""))
                        .append(": ")
                        .append(throwable.path("message").asText(""))
                        .append(']');
            }
            return Optional.of(new Rendered(at, text.toString()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
