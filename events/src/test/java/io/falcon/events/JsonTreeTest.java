package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.JsonTree.JsonArray;
import io.falcon.events.JsonTree.JsonLiteral;
import io.falcon.events.JsonTree.JsonNull;
import io.falcon.events.JsonTree.JsonObject;
import io.falcon.events.JsonTree.JsonString;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTreeTest {

    private static JsonTree root(String text) {
        JsonTree.Parsed parsed = JsonTree.parse(text);
        assertThat(parsed).isInstanceOf(JsonTree.Document.class);
        return ((JsonTree.Document) parsed).root();
    }

    @Test
    void readsEveryKindOfValueKeepingMemberOrder() {
        JsonTree tree = root("{\"z\":\"a\",\"n\":7,\"d\":1.5,\"b\":true,\"nil\":null,\"list\":[\"x\",2,[]],\"o\":{}}");
        assertThat(tree).isInstanceOf(JsonObject.class);
        JsonObject object = (JsonObject) tree;
        assertThat(object.members().keySet()).containsExactly("z", "n", "d", "b", "nil", "list", "o");
        assertThat(object.members().get("z")).isEqualTo(new JsonString("a"));
        assertThat(object.members().get("n")).isEqualTo(new JsonLiteral("7"));
        assertThat(object.members().get("d")).isEqualTo(new JsonLiteral("1.5"));
        assertThat(object.members().get("b")).isEqualTo(new JsonLiteral("true"));
        assertThat(object.members().get("nil")).isEqualTo(new JsonNull());
        assertThat(object.members().get("list"))
                .isEqualTo(new JsonArray(List.of(new JsonString("x"), new JsonLiteral("2"), new JsonArray(List.of()))));
        assertThat(object.members().get("o")).isEqualTo(new JsonObject(java.util.Map.of()));
    }

    @Test
    void aRepeatedKeyKeepsItsLastValueAsJacksonDoes() {
        assertThat(((JsonObject) root("{\"a\":\"1\",\"a\":\"2\"}")).members()).containsEntry("a", new JsonString("2"));
    }

    @Test
    void topLevelScalarsAreDocumentsToo() {
        assertThat(root("\"text\"")).isEqualTo(new JsonString("text"));
        assertThat(root("null")).isEqualTo(new JsonNull());
        assertThat(root("[1]")).isEqualTo(new JsonArray(List.of(new JsonLiteral("1"))));
    }

    @Test
    void malformedTextSaysWhyInOneLine() {
        JsonTree.Parsed parsed = JsonTree.parse("{\"image\": }");
        assertThat(parsed).isInstanceOf(JsonTree.Malformed.class);
        String reason = ((JsonTree.Malformed) parsed).reason();
        assertThat(reason).startsWith("Unexpected character ('}'").doesNotContain("\n");
    }
}
