package io.falcon.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.JobSpec;
import io.falcon.executor.k8s.JobRenderer;
import io.falcon.scheduler.core.JobRequest;
import io.falcon.scheduler.core.RequestValidator;
import io.falcon.scheduler.core.ValidRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * A jobs row as the upper components may write it, random and adversarial in every field (issue 20): the scheduler
 * core's validation either accepts it or names the field it refuses (the job ends Failed/InvalidSpec with that
 * field), and never throws; and a row it accepts renders, in the executor, into a Kubernetes Job that keeps Falcon's
 * pod policy whatever the spec says. The two halves are checked together because a row accepted by the first and
 * refused by the second would only fail later, at submission, as JobSubmitFailed.
 */
class SpecToPodPropertyTest {
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern LABEL_KEY =
            Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Set<String> ROW_FIELDS =
            Set.of("id", "actor", "tpu_type", "topology", "supply_mode", "timeout_seconds", "priority", "spec");
    private static final String NAMESPACE = "falcon-jobs";
    private static final ClusterTarget CLUSTER =
            new ClusterTarget("c-1", "edge-a", "edge-project", "us-central1", "v6e", "falcon-logs-a");
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    /** Strings that break naive code: shell and YAML metacharacters, Kubernetes-looking text, unicode, control. */
    private static final List<String> NASTY = List.of(
            "",
            " ",
            "-",
            "_",
            ".",
            "..",
            "../../etc/passwd",
            "a/b",
            "$(reboot)",
            "`id`",
            "'; rm -rf / #",
            "\"quoted\"",
            "it's",
            "a\nb",
            "\u0000",
            "\t",
            "NaN",
            "Infinity",
            "-0",
            "1e309",
            "99999999999999999999999",
            "null",
            "true",
            "{}",
            "[]",
            "key: value",
            "--privileged",
            "hostPath: /",
            "kube-system",
            "POD_NAME",
            "FALCON_JOB_ID",
            "İstanbul",
            "日本語",
            "🚀",
            "\u202e",
            "x".repeat(300));

    @Property(tries = 1000)
    void theValidatorAcceptsARowOrNamesTheFieldItRefuses(@ForAll("rows") JobRequest row) {
        RequestValidator.Result result = RequestValidator.validate(row);
        if (result instanceof RequestValidator.Invalid invalid) {
            String field = invalid.field();
            assertThat(ROW_FIELDS.contains(field) || field.startsWith("spec."))
                    .as("refused field '" + field + "'")
                    .isTrue();
            assertThat(invalid.problem()).isNotBlank();
            assertThat(invalid.message()).contains(field);
            Statistics.label("outcome").collect("invalid " + (field.startsWith("spec.") ? "spec.*" : field));
        } else {
            Statistics.label("outcome").collect("valid");
        }
    }

    @Property(tries = 1000)
    void anAcceptedRowRendersAJobThatKeepsThePodPolicy(
            @ForAll("acceptableRows") JobRequest row, @ForAll boolean actorIdentity) {
        RequestValidator.Result result = RequestValidator.validate(row);
        if (!(result instanceof RequestValidator.Valid valid)) {
            String field = ((RequestValidator.Invalid) result).field();
            Statistics.label("outcome").collect("refused " + (field.startsWith("spec.env.") ? "spec.env.*" : field));
            return;
        }
        Statistics.label("outcome").collect("rendered");
        ValidRequest request = valid.request();
        EnsureJob command = new EnsureJob(
                Meta.of("property", NOW),
                request.id(),
                CLUSTER,
                ResourceNames.nodePool(ResourceNames.DEFAULT_INSTALLATION, request.id()),
                ResourceNames.k8sJob(ResourceNames.DEFAULT_INSTALLATION, request.id()),
                request.tpuType().wireName(),
                request.topology().text(),
                request.spec());
        command = command.withActor(request.actor());
        JobRenderer renderer = new JobRenderer(
                NAMESPACE,
                JobRenderer.DEFAULT_TTL,
                JobRenderer.DEFAULT_LOG_COPY_INTERVAL,
                io.falcon.executor.core.Ownership.DEFAULT,
                actorIdentity ? JobRenderer.Identity.ACTOR : JobRenderer.Identity.CLUSTER);
        Job job = renderer.render(command);
        String actorKey = ResourceNames.actorKey(request.actor());

        assertThat(job.getMetadata().getName()).matches(DNS_LABEL);
        assertThat(job.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        assertLabels(job.getMetadata().getLabels());
        assertLabels(job.getSpec().getTemplate().getMetadata().getLabels());
        // one pod per VM of the slice (2x4 on v5e/v6e is one 8-chip VM)
        io.falcon.events.TpuSlice slice =
                request.tpuType().slice(request.topology()).orElseThrow();
        int hosts = slice.vms();
        assertThat(job.getSpec().getCompletions()).isEqualTo(hosts);
        assertThat(job.getSpec().getParallelism()).isEqualTo(hosts);
        assertThat(job.getSpec().getSuspend())
                .as("made suspended: resumed once its NetworkPolicy exists")
                .isTrue();

        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostIPC()).isNotEqualTo(Boolean.TRUE);
        if (actorIdentity) {
            assertThat(pod.getServiceAccountName())
                    .as("the actor's own account, a Kubernetes name whatever the actor")
                    .isEqualTo(actorKey)
                    .matches(DNS_LABEL);
        } else {
            assertThat(pod.getServiceAccountName())
                    .as("the namespace's default account")
                    .isNull();
        }
        assertThat(pod.getAutomountServiceAccountToken())
                .as("no Kubernetes API token in the pod")
                .isFalse();
        assertThat(pod.getInitContainers()).isNullOrEmpty();
        assertThat(pod.getNodeSelector())
                .isEqualTo(Map.of(
                        JobRenderer.SELECTOR_ACCELERATOR, request.tpuType().acceleratorLabel(),
                        JobRenderer.SELECTOR_TOPOLOGY, request.topology().text(),
                        JobRenderer.SELECTOR_NODE_POOL,
                                ResourceNames.nodePool(ResourceNames.DEFAULT_INSTALLATION, request.id())));
        assertThat(pod.getTolerations()).hasSize(1);
        assertThat(pod.getTolerations().get(0).getKey()).isEqualTo(JobRenderer.TPU_RESOURCE);
        for (Volume volume : pod.getVolumes()) {
            assertThat(volume.getHostPath()).isNull();
            if (volume.getName().equals(JobRenderer.LOCAL_LOG_VOLUME)) {
                // the local log the container's shell copies to the bucket
                assertThat(volume.getEmptyDir()).isNotNull();
                continue;
            }
            assertThat(volume.getCsi().getDriver()).isEqualTo(JobRenderer.GCSFUSE_DRIVER);
            assertThat(volume.getCsi().getVolumeAttributes())
                    .containsEntry("bucketName", CLUSTER.gcsBucket())
                    .containsEntry(
                            "mountOptions",
                            actorIdentity ? "implicit-dirs,only-dir=actors/" + actorKey : "implicit-dirs");
        }
        assertThat(pod.getVolumes())
                .extracting(Volume::getName)
                .containsExactlyInAnyOrder(JobRenderer.GCS_VOLUME, JobRenderer.LOCAL_LOG_VOLUME);

        assertThat(pod.getContainers()).hasSize(1);
        Container container = pod.getContainers().get(0);
        assertThat(container.getImage())
                .isEqualTo(request.spec().image())
                .as("an image Kubernetes accepts")
                .doesNotContainPattern("[\\s\\p{Cntrl}]");
        // Falcon's securityContext, whatever the spec asked for
        var context = container.getSecurityContext();
        assertThat(context.getPrivileged()).isFalse();
        assertThat(context.getAllowPrivilegeEscalation()).isFalse();
        assertThat(
                        context.getCapabilities() == null
                                ? null
                                : context.getCapabilities().getAdd())
                .isNullOrEmpty();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        Quantity chips = new Quantity(Integer.toString(slice.chipsPerVm()));
        assertThat(container.getResources().getRequests()).isEqualTo(Map.of(JobRenderer.TPU_RESOURCE, chips));
        assertThat(container.getResources().getLimits()).isEqualTo(Map.of(JobRenderer.TPU_RESOURCE, chips));

        // The workload runs through /bin/sh -c: the script's words after Falcon's log redirection are exactly the
        // spec's command and args, whatever quotes, $( ) or newlines they hold.
        assertThat(container.getCommand()).containsExactly("/bin/sh", "-c");
        assertThat(container.getArgs()).hasSize(1);
        String script = container.getArgs().get(0);
        String dir = "'/gcs/logs/" + request.id() + "'";
        // Falcon's own lines around the workload's (JobRenderer.shellScript; LogCopyScriptTest runs it): nothing of
        // the spec is in them
        String prefix = "mkdir -p " + dir + " '/falcon-log' || exit 1\n"
                + "log='/falcon-log'/\"${POD_NAME}.log\"\n"
                + "dst=" + dir + "/\"${POD_NAME}.log\"\n"
                + ": >>\"$log\"\n"
                + "(while sleep 30; do cp \"$log\" \"$dst\"; done) &\n"
                + "copier=$!\n";
        String suffix = " >>\"$log\" 2>&1 &\n"
                + "child=$!\n"
                + "trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT\n"
                + "wait \"$child\"; rc=$?\n"
                + "while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; rc=$?; done\n"
                + "kill \"$copier\" 2>/dev/null\n"
                + "cp \"$log\" \"$dst\"\n"
                + "exit \"$rc\"\n";
        assertThat(script).startsWith(prefix).endsWith(suffix);
        List<String> argv = new ArrayList<>(request.spec().command());
        argv.addAll(request.spec().args());
        assertThat(singleQuotedWords(script.substring(prefix.length(), script.length() - suffix.length())))
                .isEqualTo(argv);

        // Falcon's own variables first and once; the spec's exactly as given, none of them overriding Falcon's.
        List<EnvVar> env = container.getEnv();
        assertThat(env.get(0).getName()).isEqualTo(JobRenderer.POD_NAME_ENV);
        assertThat(env.get(0).getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        assertThat(env.get(1).getName()).isEqualTo(JobRenderer.JOB_ID_ENV);
        assertThat(env.get(1).getValue()).isEqualTo(request.id());
        Map<String, String> rest = new LinkedHashMap<>();
        Map<String, JobSpec.SecretRef> fromSecrets = new LinkedHashMap<>();
        for (EnvVar variable : env.subList(2, env.size())) {
            assertThat(rest.containsKey(variable.getName()) || fromSecrets.containsKey(variable.getName()))
                    .as("variable " + variable.getName() + " once")
                    .isFalse();
            if (variable.getValueFrom() == null) {
                rest.put(variable.getName(), variable.getValue());
                continue;
            }
            // a reference only, to a Secret of the job's own actor, which Kubernetes can name
            assertThat(variable.getValue()).isNull();
            var selector = variable.getValueFrom().getSecretKeyRef();
            assertThat(selector.getName())
                    .startsWith(actorKey + ".")
                    .hasSizeLessThanOrEqualTo(253)
                    .matches(DNS_SUBDOMAIN);
            assertThat(selector.getOptional())
                    .as("a missing Secret stops the pod")
                    .isNull();
            fromSecrets.put(
                    variable.getName(),
                    new JobSpec.SecretRef(selector.getName().substring(actorKey.length() + 1), selector.getKey()));
        }
        assertThat(rest).isEqualTo(request.spec().env());
        assertThat(fromSecrets).isEqualTo(request.spec().secretEnv());
        if (!fromSecrets.isEmpty()) {
            Statistics.label("secret references").collect("some");
        }

        // Its NetworkPolicy: the job's pods take connections from the job's pods only, on any port, and from nothing
        // else (no namespace or address rule); egress as it was.
        NetworkPolicy policy = renderer.renderNetworkPolicy(command);
        assertThat(policy.getMetadata().getName()).isEqualTo(job.getMetadata().getName());
        assertThat(policy.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        assertLabels(policy.getMetadata().getLabels());
        assertThat(policy.getMetadata().getLabels()).isEqualTo(job.getMetadata().getLabels());
        assertThat(policy.getMetadata().getAnnotations()).containsEntry("falcon.io/job-id", request.id());
        Map<String, String> selected = policy.getSpec().getPodSelector().getMatchLabels();
        assertThat(policy.getSpec().getPodSelector().getMatchExpressions()).isNullOrEmpty();
        assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
                .as("it selects the job's pods")
                .containsAllEntriesOf(selected);
        assertThat(selected)
                .as("and no other job's pods")
                .containsEntry("falcon-k8s-job", job.getMetadata().getName())
                .containsEntry("falcon-installation", ResourceNames.DEFAULT_INSTALLATION);
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(policy.getSpec().getEgress()).isNullOrEmpty();
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts()).isNullOrEmpty();
            assertThat(rule.getFrom()).singleElement().satisfies(peer -> {
                assertThat(peer.getNamespaceSelector()).isNull();
                assertThat(peer.getIpBlock()).isNull();
                assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(selected);
                assertThat(peer.getPodSelector().getMatchExpressions()).isNullOrEmpty();
            });
        });
        // a NUL cannot reach a process: the pod would fail to start
        assertThat(script).doesNotContain("\0");
        env.forEach(variable -> assertThat(String.valueOf(variable.getValue())).doesNotContain("\0"));
    }

    private static void assertLabels(Map<String, String> labels) {
        labels.forEach((key, value) -> {
            assertThat(key).matches(LABEL_KEY);
            assertThat(value).hasSizeLessThanOrEqualTo(63).matches(LABEL_VALUE);
        });
    }

    /**
     * The words of a POSIX shell text made only of single-quoted strings and {@code "'"} (how a quote is written
     * inside a single-quoted string), separated by single spaces. Anything else fails: nothing in the text is
     * interpreted by the shell.
     */
    static List<String> singleQuotedWords(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == ' ') {
                assertThat(inWord).as("one space between words at " + i).isTrue();
                words.add(word.toString());
                word.setLength(0);
                inWord = false;
                i++;
            } else if (c == '\'') {
                int end = text.indexOf('\'', i + 1);
                assertThat(end).as("closing quote after " + i).isPositive();
                word.append(text, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (text.startsWith("\"'\"", i)) {
                word.append('\'');
                inWord = true;
                i += 3;
            } else {
                throw new AssertionError("unquoted shell text at " + i + ": " + text.substring(i));
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    // ---- generators ----

    private static Arbitrary<String> nasty() {
        return Arbitraries.of(NASTY);
    }

    /** Any text: printable ASCII with shell metacharacters, unicode, control characters, or a nasty string. */
    private static Arbitrary<String> text(int maxLength) {
        return Arbitraries.oneOf(
                nasty(),
                Arbitraries.strings().ascii().ofMaxLength(maxLength),
                Arbitraries.strings().all().ofMaxLength(maxLength),
                Arbitraries.strings().withChars("abcXYZ019_-. '\"$`;\\/\n").ofMaxLength(maxLength));
    }

    private static Arbitrary<String> jobIds() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        3,
                        Arbitraries.strings()
                                .withChars("abcdefXYZ0189._-")
                                .ofMinLength(1)
                                .ofMaxLength(140)),
                Tuple.of(1, text(140)),
                Tuple.of(1, Arbitraries.just((String) null)));
    }

    private static Arbitrary<String> tpuTypes(boolean plausible) {
        Arbitrary<String> known = Arbitraries.of("v5e", "v5p", "v6e", "v7x");
        return plausible
                ? known
                : Arbitraries.oneOf(
                        known, Arbitraries.of("V5E", " v5e", "v5e\n", "v4", ""), text(10), Arbitraries.just(null));
    }

    private static Arbitrary<String> topologies(boolean plausible) {
        Arbitrary<String> shapes = Arbitraries.of(
                "2x2",
                "2x4",
                "4x4",
                "4x8",
                "8x8",
                "8x16",
                "16x16",
                "2x2x1",
                "2x2x2",
                "2x2x4",
                "2x4x4",
                "4x4x4",
                "4x4x8",
                "4x8x8",
                "8x8x8",
                "8x16x16",
                "16x16x16");
        Arbitrary<String> numbers = Arbitraries.integers()
                .between(0, 5000)
                .list()
                .ofMinSize(1)
                .ofMaxSize(4)
                .map(dims -> String.join("x", dims.stream().map(String::valueOf).toList()));
        return plausible ? shapes : Arbitraries.oneOf(shapes, numbers, text(20), Arbitraries.just(null));
    }

    /** A JSON value, random and nested up to {@code depth}. */
    private static Arbitrary<String> json(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                text(40).map(SpecToPodPropertyTest::jsonString),
                Arbitraries.of(
                        "0",
                        "-1",
                        "1.5",
                        "1e400",
                        "-1e-400",
                        "123456789012345678901234567890",
                        "true",
                        "false",
                        "null",
                        "NaN",
                        "Infinity"),
                Arbitraries.longs().map(String::valueOf));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> array = json(depth - 1).list().ofMaxSize(4).map(items -> "[" + String.join(",", items) + "]");
        Arbitrary<String> object = Combinators.combine(text(12), json(depth - 1))
                .as((k, v) -> jsonString(k) + ":" + v)
                .list()
                .ofMaxSize(4)
                .map(members -> "{" + String.join(",", members) + "}");
        return Arbitraries.oneOf(scalar, array, object);
    }

    private static String jsonString(String value) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static Arbitrary<String> stringArray() {
        return text(30).list()
                .ofMaxSize(5)
                .map(items -> "["
                        + String.join(
                                ",",
                                items.stream()
                                        .map(SpecToPodPropertyTest::jsonString)
                                        .toList()) + "]");
    }

    private static Arbitrary<String> envObject() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.strings().withChars("ABCxyz_019").ofMinLength(1).ofMaxLength(20),
                Arbitraries.of(
                        JobRenderer.POD_NAME_ENV,
                        JobRenderer.JOB_ID_ENV,
                        "PATH",
                        "LD_PRELOAD",
                        "KUBERNETES_SERVICE_HOST"),
                text(20));
        // mostly names and keys Kubernetes takes, so that references reach the renderer; sometimes anything
        Arbitrary<String> secretNames = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of("hf-token", "a", "db.creds-2", "s".repeat(JobSpec.MAX_SECRET_NAME))),
                Tuple.of(
                        1,
                        Arbitraries.strings()
                                .withChars("abc019-.")
                                .ofMinLength(1)
                                .ofMaxLength(200)),
                Tuple.of(1, text(20)));
        Arbitrary<String> secretKeys = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of("token", "Token_1.v2", "-", "a..b")),
                Tuple.of(1, Arbitraries.of(".", "..k", "a/b", "")),
                Tuple.of(
                        1,
                        Arbitraries.strings()
                                .withChars("aZ09-_.")
                                .ofMinLength(1)
                                .ofMaxLength(20)),
                Tuple.of(1, text(20)));
        Arbitrary<String> references = Combinators.combine(secretNames, secretKeys)
                .as((name, key) ->
                        "{\"secretKeyRef\":{\"name\":" + jsonString(name) + ",\"key\":" + jsonString(key) + "}}");
        Arbitrary<String> values = Arbitraries.oneOf(
                text(40).map(SpecToPodPropertyTest::jsonString),
                references,
                Arbitraries.of(
                        "1",
                        "true",
                        "1.5e3",
                        "null",
                        "[]",
                        "{}",
                        "{\"secretKeyRef\":{\"name\":\"s\"}}",
                        "{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\",\"optional\":true}}"));
        return Combinators.combine(names, values)
                .as((k, v) -> jsonString(k) + ":" + v)
                .list()
                .ofMaxSize(5)
                .map(members -> "{" + String.join(",", members) + "}");
    }

    /** Variables Kubernetes takes, inline (any text) and from Secrets, so that both reach the renderer often. */
    private static Arbitrary<String> validEnv() {
        Arbitrary<String> names = Arbitraries.strings()
                .withChars("ABCXYZ_")
                .ofMinLength(1)
                .ofMaxLength(8)
                .filter(n -> !JobSpec.FALCON_ENV.contains(n));
        Arbitrary<String> values = Arbitraries.oneOf(
                text(40).filter(t -> t.indexOf('\0') < 0).map(SpecToPodPropertyTest::jsonString),
                Combinators.combine(
                                Arbitraries.of("hf-token", "a", "db.creds-2", "s".repeat(JobSpec.MAX_SECRET_NAME)),
                                Arbitraries.of("token", "Token_1.v2", "-", "a..b"))
                        .as((name, key) -> "{\"secretKeyRef\":{\"name\":\"" + name + "\",\"key\":\"" + key + "\"}}"));
        return Combinators.combine(names, values)
                .as((k, v) -> jsonString(k) + ":" + v)
                .list()
                .ofMinSize(1)
                .ofMaxSize(5)
                .map(members -> "{" + String.join(",", members) + "}");
    }

    /**
     * A spec: mostly the fields Falcon reads (image, command, args, env, priority) with plausible or hostile values,
     * plus members a hostile writer might try (securityContext, nodeSelector, ...) and repeated keys; or any JSON or
     * text at all, deep nesting included.
     */
    private static Arbitrary<String> specs(boolean plausible) {
        Arbitrary<String> image = Arbitraries.oneOf(
                Arbitraries.of("\"gcr.io/p/train:1\"", "\"us-docker.pkg.dev/p/r/img@sha256:" + "a".repeat(64) + "\""),
                plausible ? Arbitraries.of("\"python:3.12\"") : json(1),
                text(60).map(SpecToPodPropertyTest::jsonString));
        Arbitrary<String> command =
                plausible ? stringArray().filter(a -> !a.equals("[]")) : Arbitraries.oneOf(stringArray(), json(2));
        Arbitrary<String> args = Arbitraries.oneOf(stringArray(), plausible ? Arbitraries.just("null") : json(2));
        Arbitrary<String> env = Arbitraries.oneOf(
                envObject(), plausible ? Arbitraries.oneOf(Arbitraries.just("{}"), validEnv()) : json(2));
        Arbitrary<String> priority = Arbitraries.oneOf(
                Arbitraries.integers().between(-1000, 1000).map(String::valueOf),
                plausible ? Arbitraries.just("null") : json(1));
        Arbitrary<List<String>> hostile = Arbitraries.of(
                        "\"nodeSelector\":{\"kubernetes.io/hostname\":\"control-plane\"}",
                        "\"serviceAccountName\":\"default\"",
                        "\"tolerations\":[{\"operator\":\"Exists\"}]",
                        "\"resources\":{\"limits\":{\"google.com/tpu\":\"1000\"}}",
                        "\"namespace\":\"kube-system\"",
                        "\"labels\":{\"managed-by\":\"someone-else\"}",
                        "\"hostIPC\":true",
                        "\"image\":\"second-image:latest\"",
                        "\"privileged\":true",
                        "\"securityContext\":{\"privileged\":true}",
                        "\"hostNetwork\":true",
                        "\"volumes\":[{\"hostPath\":{\"path\":\"/\"}}]")
                .list()
                .ofMaxSize(plausible ? 1 : 3);
        Arbitrary<String> object = Combinators.combine(image, command, args, env, priority, hostile)
                .as((i, c, a, e, p, h) -> {
                    List<String> members = new ArrayList<>(List.of(
                            "\"image\":" + i,
                            "\"command\":" + c,
                            "\"args\":" + a,
                            "\"env\":" + e,
                            "\"priority\":" + p));
                    members.addAll(h);
                    return "{" + String.join(",", members) + "}";
                });
        if (plausible) {
            return object;
        }
        Arbitrary<String> deep = Arbitraries.integers()
                .between(1, 3000)
                .map(n -> "{\"image\":\"x\",\"command\":" + "[".repeat(n) + "]".repeat(n) + "}");
        return Arbitraries.frequencyOf(
                Tuple.of(6, object),
                Tuple.of(2, json(3)),
                Tuple.of(1, text(80)),
                Tuple.of(1, deep),
                Tuple.of(1, Arbitraries.just((String) null)));
    }

    private static Arbitrary<Optional<Long>> longs() {
        return Arbitraries.oneOf(
                Arbitraries.just(Optional.<Long>empty()),
                Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L, 1000L, 1001L, 2_592_000L, 2_592_001L)
                        .map(Optional::of),
                Arbitraries.longs().map(Optional::of));
    }

    /** Mostly the plausible value, sometimes the hostile one: so that refusals come from every field in turn. */
    private static <T> Arbitrary<T> mostly(Arbitrary<T> plausible, Arbitrary<T> hostile, boolean onlyPlausible) {
        return onlyPlausible ? plausible : Arbitraries.frequencyOf(Tuple.of(6, plausible), Tuple.of(1, hostile));
    }

    /** A TPU generation with a slice shape it offers (so that the pair passes), or anything at all. */
    private static Arbitrary<String[]> typesAndShapes(boolean plausible) {
        Arbitrary<String[]> matching = Arbitraries.oneOf(
                Combinators.combine(
                                Arbitraries.of("v5e", "v6e"),
                                Arbitraries.of("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"))
                        .as((type, shape) -> new String[] {type, shape}),
                Combinators.combine(
                                Arbitraries.of("v5p", "v7x"),
                                Arbitraries.of("2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8"))
                        .as((type, shape) -> new String[] {type, shape}));
        Arbitrary<String[]> any =
                Combinators.combine(tpuTypes(false), topologies(false)).as((type, shape) -> new String[] {type, shape});
        return mostly(matching, any, plausible);
    }

    private static Arbitrary<JobRequest> rows(boolean plausible) {
        Arbitrary<Optional<String>> supplyMode = mostly(
                Arbitraries.of("reservation", "on-demand", "flex-start", "")
                        .map(Optional::of)
                        .injectNull(0.3)
                        .map(m -> m == null ? Optional.<String>empty() : m),
                text(15).map(Optional::of),
                plausible);
        Arbitrary<String> actor = mostly(
                Arbitraries.of("team-a", "team-b"), Arbitraries.oneOf(text(20), Arbitraries.just(null)), plausible);
        Arbitrary<String> id = mostly(
                Arbitraries.oneOf(
                        Arbitraries.strings()
                                .withChars("abcXYZ019._-")
                                .ofMinLength(1)
                                .ofMaxLength(130),
                        Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(20)),
                jobIds(),
                plausible);
        Arbitrary<Optional<Long>> timeout =
                mostly(Arbitraries.longs().between(1, 2_592_000).map(Optional::of), longs(), plausible);
        Arbitrary<Optional<Long>> priority = mostly(
                Arbitraries.longs()
                        .between(-1000, 1000)
                        .map(Optional::of)
                        .injectNull(0.5)
                        .map(p -> p == null ? Optional.<Long>empty() : p),
                longs(),
                plausible);
        Arbitrary<String> spec = mostly(specs(true), specs(false), plausible);
        return Combinators.combine(id, actor, text(30), typesAndShapes(plausible), spec, supplyMode, timeout, priority)
                .as((i, a, n, typeAndShape, s, m, to, p) ->
                        new JobRequest(i, a, n, typeAndShape[0], typeAndShape[1], s, m, to, NOW, p));
    }

    @Provide
    Arbitrary<JobRequest> rows() {
        return rows(false);
    }

    /** Rows shaped to pass validation often, so that most tries reach the renderer, with hostile contents. */
    @Provide
    Arbitrary<JobRequest> acceptableRows() {
        return rows(true);
    }
}
