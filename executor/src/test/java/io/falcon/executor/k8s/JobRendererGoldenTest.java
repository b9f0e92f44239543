package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.falcon.events.executor.JobSpec;
import io.falcon.executor.Fixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Golden files: the whole rendered manifest of a single-host and a multi-host job, their NetworkPolicy, and an actor's
 * job run as the actor with a Secret reference, as YAML, compared with the
 * reviewed copies in src/test/resources/golden. After an intended change, regenerate them with
 * {@code mvn -pl executor test -Dtest=JobRendererGoldenTest -Dfalcon.golden.update=true} and review the diff.
 */
class JobRendererGoldenTest {
    private static final KubernetesSerialization YAML = new KubernetesSerialization();
    private final JobRenderer renderer = new JobRenderer("falcon-jobs");

    @ParameterizedTest
    @CsvSource({"job-single, 2x2x1, job-single-host-2x2x1.yaml", "job-multi, 2x2x4, job-multi-host-2x2x4.yaml"})
    void renderedManifestMatchesTheGoldenFile(String jobId, String topology, String file) throws IOException {
        Job job = renderer.render(Fixtures.ensureJob(jobId, topology, Fixtures.spec()));
        matchesGolden(YAML.asYaml(job), file);
    }

    @Test
    void theNetworkPolicyMatchesTheGoldenFile() throws IOException {
        matchesGolden(
                YAML.asYaml(renderer.renderNetworkPolicy(Fixtures.ensureJob("job-multi", "2x2x4", Fixtures.spec()))),
                "networkpolicy-2x2x4.yaml");
    }

    /** A job of an actor, run as the actor's identity, with a variable from the actor's Secret. */
    @Test
    void anActorsJobWithASecretReferenceMatchesTheGoldenFile() throws IOException {
        JobRenderer perActor = new JobRenderer(
                "falcon-jobs",
                JobRenderer.DEFAULT_TTL,
                JobRenderer.DEFAULT_LOG_COPY_INTERVAL,
                io.falcon.executor.core.Ownership.DEFAULT,
                JobRenderer.Identity.ACTOR);
        JobSpec spec = new JobSpec(
                "us-docker.pkg.dev/p/r/train:1",
                List.of("python", "train.py"),
                List.of(),
                Map.of("A", "1"),
                Map.of("HF_TOKEN", new JobSpec.SecretRef("hf-token", "token")));
        Job job = perActor.render(Fixtures.ensureJob("job-actor", "2x2x1", spec).withActor("team-a"));
        matchesGolden(YAML.asYaml(job), "job-actor-2x2x1.yaml");
    }

    private void matchesGolden(String actual, String file) throws IOException {
        if (Boolean.getBoolean("falcon.golden.update")) {
            Path target = Path.of("src/test/resources/golden", file);
            Files.createDirectories(target.getParent());
            Files.writeString(target, actual);
        }
        try (InputStream in = getClass().getResourceAsStream("/golden/" + file)) {
            assertThat(in).as("golden file " + file).isNotNull();
            assertThat(actual).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
