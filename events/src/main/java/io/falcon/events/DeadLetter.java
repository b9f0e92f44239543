package io.falcon.events;

import java.util.Optional;

/**
 * A record that could not be decoded or applied. The original bytes are kept (base64) so nothing is lost
 * and the record can be replayed once the cause is fixed; a Kafka Streams component keeps at most
 * {@code StreamsDeadLetters.MAX_PAYLOAD_BYTES} of them (a larger dead letter would not fit its topic), and the
 * source topic, partition and offset lead to the whole record.
 */
public record DeadLetter(
        Meta meta,
        String sourceTopic,
        int partition,
        long offset,
        Optional<String> key,
        String payloadBase64,
        String reason,
        String errorClass) {

    public static DeadLetter of(
            Meta meta,
            String sourceTopic,
            int partition,
            long offset,
            byte[] key,
            byte[] payload,
            String reason,
            Throwable error) {
        return new DeadLetter(
                meta,
                sourceTopic,
                partition,
                offset,
                Optional.ofNullable(key).map(k -> new String(k, java.nio.charset.StandardCharsets.UTF_8)),
                payload == null ? "" : java.util.Base64.getEncoder().encodeToString(payload),
                reason,
                error == null ? "" : error.getClass().getName());
    }
}
