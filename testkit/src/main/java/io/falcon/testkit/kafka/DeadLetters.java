package io.falcon.testkit.kafka;

import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Predicate;

/** Reading falcon.dead-letter, which every component of every test in the JVM shares. */
public final class DeadLetters {
    private DeadLetters() {}

    /** A reader of falcon.dead-letter from its beginning; narrow it down with {@link #from(String)}. */
    public static TopicReader<String, DeadLetter> reader(String bootstrapServers) {
        return TopicReader.fromBeginning(bootstrapServers, Topics.DEAD_LETTER);
    }

    /** The letters of records that came from this topic (a test's own topic tells its letters from the others'). */
    public static Predicate<DeadLetter> from(String sourceTopic) {
        return letter -> letter.sourceTopic().equals(sourceTopic);
    }

    /** The original record's payload as text. */
    public static String payloadText(DeadLetter letter) {
        return new String(Base64.getDecoder().decode(letter.payloadBase64()), StandardCharsets.UTF_8);
    }
}
