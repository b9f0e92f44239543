package io.falcon.fleetsim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An append-only record of every mutation fleet-sim served: node-pool creates and deletes (GKE gRPC), the creates
 * whose operation then failed, and Kubernetes Job creates and deletes (each edge API server), with the outcome it
 * answered. It exists so that duplicates and leaks
 * are counted from outside Falcon: a chaos run reads the file, not Falcon's own state.
 *
 * <p>The file holds one JSON object per line, written and flushed before the answer leaves the sim, so a line that is
 * in the file was served: {@code {"at":"...","kind":"K8S_JOB_CREATE","outcome":"ACCEPTED","cluster":"...",
 * "name":"falcon-j1","job":"j1"}}. {@code job} is the Falcon job id when the request carried it (the pool's
 * {@code falcon-job-id} node metadata, the Job's {@code falcon.io/job-id} annotation).
 */
public final class FleetRecord implements AutoCloseable {

    /** What was asked, or what became of it. */
    public enum Kind {
        NODE_POOL_CREATE,
        /**
         * The operation of an accepted NODE_POOL_CREATE ended in error (outcome REFUSED): GKE left the pool in ERROR
         * (short reservation capacity, quota, an invalid reservation). Once that pool is deleted its name may be
         * created again: an accepted create after it is not a duplicate.
         */
        NODE_POOL_CREATE_FAILED,
        NODE_POOL_DELETE,
        K8S_JOB_CREATE,
        K8S_JOB_DELETE
    }

    /** What the sim answered: ACCEPTED is the only outcome that changed the fleet. */
    public enum Outcome {
        ACCEPTED,
        ALREADY_EXISTS,
        NOT_FOUND,
        REFUSED
    }

    /** One served request. {@code cluster} is the cluster's GKE name. */
    public record Entry(Instant at, Kind kind, Outcome outcome, String cluster, String name, Optional<String> job) {

        String toJson() {
            ObjectNode node = MAPPER.createObjectNode();
            node.put("at", at.toString());
            node.put("kind", kind.name());
            node.put("outcome", outcome.name());
            node.put("cluster", cluster);
            node.put("name", name);
            job.ifPresent(j -> node.put("job", j));
            try {
                return MAPPER.writeValueAsString(node);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        static Entry fromJson(String line) {
            try {
                JsonNode node = MAPPER.readTree(line);
                return new Entry(
                        Instant.parse(node.get("at").asText()),
                        Kind.valueOf(node.get("kind").asText()),
                        Outcome.valueOf(node.get("outcome").asText()),
                        node.get("cluster").asText(),
                        node.get("name").asText(),
                        Optional.ofNullable(node.get("job")).map(JsonNode::asText));
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("not a fleet record line: " + line, e);
            }
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<Entry> entries = new ArrayList<>();
    private final Optional<BufferedWriter> file;

    private FleetRecord(Optional<BufferedWriter> file) {
        this.file = file;
    }

    /** A record kept in memory only (tests in the same JVM read {@link #entries()}). */
    public static FleetRecord inMemory() {
        return new FleetRecord(Optional.empty());
    }

    /** A record also appended to {@code path} (created if missing; an existing file is appended to, never truncated). */
    public static FleetRecord appendingTo(Path path) {
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            return new FleetRecord(Optional.of(Files.newBufferedWriter(
                    path,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the fleet record " + path, e);
        }
    }

    /** Reads a record file written by {@link #appendingTo}; a torn last line (the sim was killed mid-write) is skipped. */
    public static List<Entry> read(Path path) throws IOException {
        List<Entry> out = new ArrayList<>();
        if (!Files.exists(path)) {
            return out;
        }
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            try {
                out.add(Entry.fromJson(line));
            } catch (IllegalArgumentException e) {
                if (i != lines.size() - 1) {
                    throw e;
                }
            }
        }
        return out;
    }

    public synchronized void add(Entry entry) {
        entries.add(entry);
        file.ifPresent(writer -> {
            try {
                writer.write(entry.toJson());
                writer.newLine();
                writer.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to the fleet record", e);
            }
        });
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    @Override
    public synchronized void close() {
        file.ifPresent(writer -> {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
