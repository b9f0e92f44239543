package io.falcon.ops;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonLogsTest {
    @Test
    void theShippedConfigurationWritesOneJsonObjectPerLineWithTheMdc() throws Exception {
        URL config = getClass().getClassLoader().getResource("falcon-logback-json.xml");
        assertThat(config).as("falcon-logback-json.xml on the class path").isNotNull();
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(config);
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .noneMatch(s -> s.getLevel() >= ch.qos.logback.core.status.Status.ERROR);

        ch.qos.logback.classic.Logger logger = context.getLogger("io.falcon.executor.NodePoolManager");
        assertThat(logger.isInfoEnabled()).isTrue();
        @SuppressWarnings("unchecked")
        ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
                (ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>)
                        context.getLogger("ROOT").getAppender("JSON");
        Encoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder = appender.getEncoder();

        LoggingEvent event = new LoggingEvent(
                "test", logger, Level.INFO, "node pool {} created on {}", null, new Object[] {"falcon-job-42", "edge-a"
                });
        event.setMDCPropertyMap(Map.of(
                FalconMdc.JOB,
                "job-42",
                FalconMdc.CLUSTER,
                "edge-a",
                FalconMdc.NODE_POOL,
                "falcon-job-42",
                FalconMdc.DEVICE,
                "tpu-3"));
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n");
        assertThat(line.strip()).doesNotContain("\n");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("INFO");
        assertThat(json.get("loggerName").asText()).isEqualTo("io.falcon.executor.NodePoolManager");
        assertThat(json.get("formattedMessage").asText()).isEqualTo("node pool falcon-job-42 created on edge-a");
        assertThat(json.get("mdc").get("job").asText()).isEqualTo("job-42");
        assertThat(json.get("mdc").get("cluster").asText()).isEqualTo("edge-a");
        assertThat(json.get("mdc").get("nodePool").asText()).isEqualTo("falcon-job-42");
        assertThat(json.get("mdc").get("device").asText()).isEqualTo("tpu-3");
        context.stop();
    }

    @Test
    void falconMdcSetsAndClearsTheKeys() {
        try (FalconMdc mdc =
                FalconMdc.job("job-1").cluster("edge-a").nodePool(null).device("d0")) {
            assertThat(org.slf4j.MDC.get("job")).isEqualTo("job-1");
            assertThat(org.slf4j.MDC.get("cluster")).isEqualTo("edge-a");
            assertThat(org.slf4j.MDC.get("nodePool")).isNull();
            assertThat(org.slf4j.MDC.get("device")).isEqualTo("d0");
        }
        assertThat(org.slf4j.MDC.get("job")).isNull();
        assertThat(org.slf4j.MDC.get("device")).isNull();
    }
}
