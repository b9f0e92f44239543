package io.falcon.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON text read into plain values, so that code which decides what a document means (the scheduler core
 * validating a job spec) depends on the JDK and this module only, not on a JSON library. Read with Falcon's one Jackson
 * configuration ({@link Json#mapper()}); a repeated object key keeps its last value, as Jackson does.
 */
public sealed interface JsonTree {

    /** An object; its members keep the order of the text. */
    record JsonObject(Map<String, JsonTree> members) implements JsonTree {
        public JsonObject {
            members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
        }
    }

    record JsonArray(List<JsonTree> elements) implements JsonTree {
        public JsonArray {
            elements = List.copyOf(elements);
        }
    }

    record JsonString(String value) implements JsonTree {}

    /** A number or a boolean, with the text Jackson gives it ("7", "1.5", "true"). */
    record JsonLiteral(String text) implements JsonTree {}

    record JsonNull() implements JsonTree {}

    /** What reading a text gave: a document, or why it is not JSON. */
    sealed interface Parsed {}

    record Document(JsonTree root) implements Parsed {}

    /** @param reason the first line of the parser's message (the rest points into the source, not at the problem) */
    record Malformed(String reason) implements Parsed {}

    static Parsed parse(String text) {
        try {
            return new Document(of(Json.mapper().readTree(text)));
        } catch (IOException e) {
            return new Malformed(
                    String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
    }

    private static JsonTree of(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return new JsonNull();
        }
        if (node.isObject()) {
            Map<String, JsonTree> members = new LinkedHashMap<>();
            node.properties().forEach(member -> members.put(member.getKey(), of(member.getValue())));
            return new JsonObject(members);
        }
        if (node.isArray()) {
            List<JsonTree> elements = new ArrayList<>(node.size());
            node.forEach(element -> elements.add(of(element)));
            return new JsonArray(elements);
        }
        if (node.isTextual()) {
            return new JsonString(node.asText());
        }
        return new JsonLiteral(node.asText());
    }
}
