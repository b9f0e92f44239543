package io.falcon.executor.kafka;

import static io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** A send error is taken by the thread (command loop) whose event failed, not by another loop sharing the producer. */
class KafkaEventSinkTest {

    @Test
    void aSendErrorGoesToTheThreadThatSentTheEvent() throws Exception {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaEventSink sink = new KafkaEventSink(producer);

        Thread other = new Thread(() -> sink.emit(executorEvent("j-other").nodePoolCreating()));
        other.start();
        other.join();
        sink.emit(executorEvent("j-mine").nodePoolReady());

        producer.errorNext(new IllegalStateException("broker gone")); // the other loop's event fails
        producer.completeNext(); // mine goes through

        AtomicReference<Exception> otherTook = new AtomicReference<>();
        Thread otherAgain = new Thread(() -> otherTook.set(sink.takeError()));
        assertThat(sink.takeError()).isNull();
        // a fresh thread has no errors of its own either: the error belongs to the thread that sent the event
        otherAgain.start();
        otherAgain.join();
        assertThat(otherTook.get()).isNull();
    }

    @Test
    void theSendingThreadTakesItsErrorOnce() {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaEventSink sink = new KafkaEventSink(producer);
        sink.emit(executorEvent("j1").nodePoolReady());
        producer.errorNext(new IllegalStateException("broker gone"));

        assertThat(sink.takeError()).hasMessage("broker gone");
        assertThat(sink.takeError()).isNull();
    }
}
