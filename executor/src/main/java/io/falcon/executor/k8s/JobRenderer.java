package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.falcon.events.ResourceNames;
import io.falcon.events.TpuSlice;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.JobSpec;
import io.falcon.executor.FalconLabels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Renders an EnsureJob command into a Kubernetes Job (pure: no I/O). One pod per TPU host: an Indexed Job with
 * completions = parallelism = hosts, pinned to the job's node pool, with the GCS FUSE bucket of the cluster (or, with
 * {@link Identity#ACTOR}, the actor's folder of it) mounted at /gcs and the workload's stdout/stderr redirected to
 * {@code /gcs/logs/<job_id>/<pod_name>.log}; no Kubernetes API token in the pod; and a NetworkPolicy that admits to the
 * job's pods only its own pods ({@link #renderNetworkPolicy}). The Job is rendered suspended: the executor resumes it
 * once its policy exists.
 */
public final class JobRenderer {
    public static final String TPU_RESOURCE = "google.com/tpu";
    public static final String GCSFUSE_DRIVER = "gcsfuse.csi.storage.gke.io";
    public static final String GCSFUSE_ANNOTATION = "gke-gcsfuse/volumes";
    public static final String GCS_MOUNT = "/gcs";
    public static final String GCS_VOLUME = "gcs";
    public static final String CONTAINER_NAME = "workload";
    public static final String SELECTOR_ACCELERATOR = "cloud.google.com/gke-tpu-accelerator";
    public static final String SELECTOR_TOPOLOGY = "cloud.google.com/gke-tpu-topology";
    public static final String SELECTOR_NODE_POOL = "cloud.google.com/gke-nodepool";
    public static final String POD_NAME_ENV = JobSpec.POD_NAME_ENV;
    public static final String JOB_ID_ENV = JobSpec.JOB_ID_ENV;

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String namespace;

    /** The default ttlSecondsAfterFinished: a day, long enough for any executor outage to be over. */
    public static final java.time.Duration DEFAULT_TTL = java.time.Duration.ofHours(24);

    /** The local emptyDir the workload's output goes to before it is copied to the bucket. */
    public static final String LOCAL_LOG_MOUNT = "/falcon-log";

    public static final String LOCAL_LOG_VOLUME = "falcon-log";
    public static final java.time.Duration DEFAULT_LOG_COPY_INTERVAL = java.time.Duration.ofSeconds(30);

    private final java.time.Duration ttlAfterFinished;
    private final java.time.Duration logCopyInterval;

    private final io.falcon.executor.core.Ownership ownership;
    private final Identity identity;

    /**
     * Who a job's pods are to Google ({@code falcon.executor.job.identity}). Through Workload Identity Federation for
     * GKE, a pod's Kubernetes service account is its Google identity: the one the GCS FUSE CSI driver mounts the
     * bucket with (the kubelet hands the driver a token for it, CSIDriver tokenRequests), and the one the GKE
     * metadata server gives the workload tokens for.
     */
    public enum Identity {
        /** The clusters row's k8s_service_account, else the namespace's default; the whole bucket at /gcs. */
        CLUSTER("cluster"),
        /**
         * The actor's own service account, {@link ResourceNames#actorKey}, and only the actor's folder {@code
         * actors/<key>/} of the bucket at /gcs: an IAM grant on that prefix to that service account keeps each actor's
         * logs and files its own (docs/deploy.md).
         */
        ACTOR("actor");

        private final String wireName;

        Identity(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** The catalog's choice type has already refused any other word. */
        public static Identity of(String wireName) {
            for (Identity identity : values()) {
                if (identity.wireName.equals(wireName)) {
                    return identity;
                }
            }
            throw new IllegalArgumentException("no job identity " + wireName);
        }
    }

    /** Whose labels the rendered objects carry, and what proves an object found by name this installation's. */
    public io.falcon.executor.core.Ownership ownership() {
        return ownership;
    }

    /** The bucket folder an actor's pods see at /gcs with {@link Identity#ACTOR}. */
    public static String actorFolder(String actor) {
        return "actors/" + ResourceNames.actorKey(actor);
    }

    public JobRenderer(String namespace) {
        this(namespace, DEFAULT_TTL);
    }

    /**
     * @param ttlAfterFinished ttlSecondsAfterFinished: Kubernetes deletes a finished Job after it even if Falcon's
     *     own deletion was lost (the scheduler deletes Jobs of ended tasks itself, and re-asks until confirmed)
     */
    public JobRenderer(String namespace, java.time.Duration ttlAfterFinished) {
        this(namespace, ttlAfterFinished, DEFAULT_LOG_COPY_INTERVAL);
    }

    /** @param logCopyInterval how often the running pod's log is copied whole to the bucket (at least 1 s) */
    public JobRenderer(String namespace, java.time.Duration ttlAfterFinished, java.time.Duration logCopyInterval) {
        this(namespace, ttlAfterFinished, logCopyInterval, io.falcon.executor.core.Ownership.DEFAULT);
    }

    /** @param ownership whose labels the Job, its pods and Service carry */
    public JobRenderer(
            String namespace,
            java.time.Duration ttlAfterFinished,
            java.time.Duration logCopyInterval,
            io.falcon.executor.core.Ownership ownership) {
        this(namespace, ttlAfterFinished, logCopyInterval, ownership, Identity.CLUSTER);
    }

    /** @param identity who the pods are to Google, and how much of the bucket they mount */
    public JobRenderer(
            String namespace,
            java.time.Duration ttlAfterFinished,
            java.time.Duration logCopyInterval,
            io.falcon.executor.core.Ownership ownership,
            Identity identity) {
        this.identity = identity;
        this.ownership = ownership;
        this.namespace = namespace;
        this.ttlAfterFinished = ttlAfterFinished;
        this.logCopyInterval = logCopyInterval;
    }

    /** The log file of a pod, as seen inside the container (the bucket is mounted at /gcs). */
    public static String logDirectory(String jobId) {
        return GCS_MOUNT + "/logs/" + jobId;
    }

    public Job render(EnsureJob command) {
        JobSpec spec = command.spec();
        if (spec == null) {
            throw new InvalidJobException("spec is missing");
        }
        if (command.k8sJobName() == null
                || !DNS_LABEL.matcher(command.k8sJobName()).matches()) {
            throw new InvalidJobException("k8s job name '" + command.k8sJobName()
                    + "' is not a DNS-1123 label (lowercase letters, digits, '-', at most 63)");
        }
        if (!ResourceNames.isUsableJobId(command.jobId())) {
            throw new InvalidJobException("job id '" + command.jobId() + "' cannot be used in the log path "
                    + "gs://<bucket>/logs/<job_id>/ (letters, digits, '.', '_', '-' only)");
        }
        TpuType tpuType = TpuType.fromWire(command.tpuType())
                .orElseThrow(() -> new InvalidJobException("unknown tpu type '" + command.tpuType() + "'"));
        TpuSlice slice = slice(command);
        TpuTopology topology = slice.topology();
        if (command.nodePoolName() == null || command.nodePoolName().isBlank()) {
            throw new InvalidJobException("node pool name is missing");
        }
        String bucket = command.cluster() == null ? null : command.cluster().gcsBucket();
        if (bucket == null || bucket.isBlank()) {
            throw new InvalidJobException("cluster has no gcs_bucket for logs");
        }
        if (spec.image() == null || spec.image().isBlank()) {
            throw new InvalidJobException("spec.image is empty");
        }
        List<String> argv = new ArrayList<>(spec.command());
        argv.addAll(spec.args());
        if (argv.isEmpty()) {
            throw new InvalidJobException("spec.command and spec.args are both empty: Falcon runs the command through "
                    + "/bin/sh -c to redirect its logs to GCS, so the command must be given");
        }
        List<String> names = new ArrayList<>(spec.env().keySet());
        names.addAll(spec.secretEnv().keySet());
        for (String name : names) {
            if (!ENV_NAME.matcher(name).matches()) {
                throw new InvalidJobException("spec.env name '" + name + "' is not a valid environment variable name");
            }
            if (JobSpec.FALCON_ENV.contains(name)) {
                throw new InvalidJobException("spec.env must not set " + name + ": Falcon sets it");
            }
            if (spec.env().containsKey(name) && spec.secretEnv().containsKey(name)) {
                throw new InvalidJobException("spec.env sets " + name + " both inline and from a Secret");
            }
        }
        Optional<String> actor = command.actor().filter(a -> !a.isEmpty());
        for (Map.Entry<String, JobSpec.SecretRef> reference : spec.secretEnv().entrySet()) {
            if (actor.isEmpty()) {
                throw new InvalidJobException("spec.env." + reference.getKey() + " references a Secret, and the command"
                        + " names no actor whose Secret it would be");
            }
            Optional<String> problem = JobSpec.secretNameProblem(
                            reference.getValue().name())
                    .or(() -> JobSpec.secretKeyProblem(reference.getValue().key()));
            if (problem.isPresent()) {
                throw new InvalidJobException("spec.env." + reference.getKey() + " secretKeyRef: " + problem.get());
            }
        }
        if (identity == Identity.ACTOR && actor.isEmpty()) {
            throw new InvalidJobException("falcon.executor.job.identity is actor and the command names no actor to run"
                    + " the job's pods as");
        }

        // one pod per VM of the slice, each asking for all of its VM's chips
        int pods = slice.vms();
        Map<String, String> labels = ownership.labels(command.jobId(), topology.text());
        Map<String, String> podLabels = new LinkedHashMap<>(labels);
        podLabels.put(FalconLabels.K8S_JOB, command.k8sJobName());

        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(FalconLabels.ANNOTATION_JOB_ID, command.jobId());
        if (command.cluster().clusterId() != null) {
            annotations.put(
                    FalconLabels.ANNOTATION_CLUSTER_ID, command.cluster().clusterId());
        }
        annotations.put(FalconLabels.ANNOTATION_TPU_TYPE, tpuType.wireName());
        annotations.put(FalconLabels.ANNOTATION_EXPECTED_PODS, Integer.toString(pods));

        Map<String, String> nodeSelector = new LinkedHashMap<>();
        nodeSelector.put(SELECTOR_ACCELERATOR, tpuType.acceleratorLabel());
        nodeSelector.put(SELECTOR_TOPOLOGY, topology.text());
        nodeSelector.put(SELECTOR_NODE_POOL, command.nodePoolName());

        Quantity chips = new Quantity(Integer.toString(slice.chipsPerVm()));
        Container container = new ContainerBuilder()
                .withName(CONTAINER_NAME)
                .withImage(spec.image())
                .withCommand("/bin/sh", "-c")
                .withArgs(shellScript(
                        logDirectory(command.jobId()), LOCAL_LOG_MOUNT, Math.max(1, logCopyInterval.toSeconds()), argv))
                .withEnv(env(command.jobId(), spec, actor))
                .withNewResources()
                .addToRequests(TPU_RESOURCE, chips)
                .addToLimits(TPU_RESOURCE, chips)
                .endResources()
                .addNewVolumeMount()
                .withName(GCS_VOLUME)
                .withMountPath(GCS_MOUNT)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(LOCAL_LOG_VOLUME)
                .withMountPath(LOCAL_LOG_MOUNT)
                .endVolumeMount()
                // Set by Falcon, never from the spec (which cannot name it: InvalidSpec): the workload may run as
                // the image's user, root included, but cannot gain more than it starts with (no setuid escalation)
                // nor ask for privileged mode. TPU chips come from the device plugin and need neither.
                .withNewSecurityContext()
                .withPrivileged(false)
                .withAllowPrivilegeEscalation(false)
                .endSecurityContext()
                .build();

        Job job = new JobBuilder()
                .withNewMetadata()
                .withName(command.k8sJobName())
                .withNamespace(namespace)
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withCompletionMode("Indexed")
                .withCompletions(pods)
                .withParallelism(pods)
                .withBackoffLimit(0)
                // A pod the fleet disrupted (DisruptionTarget: preempted, evicted, its node drained, shut down or
                // lost) fails the Job with reason PodFailurePolicy and a message naming the condition: evidence on
                // the Job itself, which outlives the pod (evicted pods are deleted) and the executor's memory, so an
                // executor that comes back later still reads the end as the fleet's (JobObservation.cause).
                .withNewPodFailurePolicy()
                .addNewRule()
                .withAction("FailJob")
                .addNewOnPodCondition()
                .withType("DisruptionTarget")
                .withStatus("True")
                .endOnPodCondition()
                .endRule()
                .endPodFailurePolicy()
                // Created suspended: the executor resumes it once its NetworkPolicy (and Service) exist, so that no
                // pod of it runs unprotected (KubernetesEdgeApi.createJob).
                .withSuspend(true)
                .withTtlSecondsAfterFinished((int) Math.min(Integer.MAX_VALUE, ttlAfterFinished.toSeconds()))
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels)
                .addToAnnotations(GCSFUSE_ANNOTATION, "true")
                .endMetadata()
                .withNewSpec()
                // Multi-host: the workers find each other by DNS, <job>-<index>.<subdomain>, which the headless
                // Service of the same name (renderService) provides.
                .withSubdomain(pods > 1 ? command.k8sJobName() : null)
                .withRestartPolicy("Never")
                // Workload Identity: the pods' service account is the identity the GCS FUSE volume uses for the
                // bucket (https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-storage-fuse-csi-driver-setup):
                // the actor's own, or the cluster's; without one, the namespace's default service account
                .withServiceAccountName(
                        identity == Identity.ACTOR
                                ? ResourceNames.actorKey(actor.orElseThrow())
                                : serviceAccount(command).orElse(null))
                // No Kubernetes API token in the pod: the workload has no business with the edge cluster's API. Google
                // tokens do not need it: the GKE metadata server serves them for the pod's service account, and the
                // kubelet gives the GCS FUSE CSI driver a token of its own (CSIDriver tokenRequests).
                .withAutomountServiceAccountToken(false)
                // The container runtime's default seccomp profile instead of none (the kubelet's default).
                .withNewSecurityContext()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withNodeSelector(nodeSelector)
                .addNewToleration()
                .withKey(TPU_RESOURCE)
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .withContainers(container)
                .addNewVolume()
                .withName(GCS_VOLUME)
                .withNewCsi()
                .withDriver(GCSFUSE_DRIVER)
                .addToVolumeAttributes("bucketName", bucket)
                .addToVolumeAttributes("mountOptions", mountOptions(actor))
                .endCsi()
                .endVolume()
                .addNewVolume()
                .withName(LOCAL_LOG_VOLUME)
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        validate(job);
        return job;
    }

    /**
     * The headless Service a multi-host Job's workers resolve each other through (empty for a single-host Job):
     * named as the Job (the pods' {@code subdomain}), selecting the Job's pods by Falcon's own label, publishing
     * addresses before the pods are Ready (TPU workers look each other up while starting). Kubernetes' "Job with
     * Pod-to-Pod Communication" (https://kubernetes.io/docs/tasks/job/job-with-pod-to-pod-communication/) and GKE's
     * multi-host TPU examples (https://cloud.google.com/kubernetes-engine/docs/how-to/tpus) use this shape. The
     * executor owns it to the Job (ownerReference), so it goes when the Job goes.
     */
    public java.util.Optional<io.fabric8.kubernetes.api.model.Service> renderService(EnsureJob command) {
        TpuSlice slice = slice(command);
        if (!slice.multiHost()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata()
                .withName(command.k8sJobName())
                .withNamespace(namespace)
                .withLabels(ownership.labels(command.jobId(), slice.topology().text()))
                .withAnnotations(Map.of(FalconLabels.ANNOTATION_JOB_ID, command.jobId()))
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Map.of(FalconLabels.K8S_JOB, command.k8sJobName()))
                .endSpec()
                .build());
    }

    /**
     * The job's NetworkPolicy, named as the Job: its pods (Falcon's labels: this installation's pods of this Kubernetes
     * Job) accept connections only from each other, on any port; nothing else in or outside the cluster reaches them
     * (other tenants' pods found by DNS name included). Egress is left as it is: the workload needs DNS, the metadata
     * server, GCS and its images. Labelled as Falcon's objects and annotated with the job id, which is what proves it
     * this job's when it is found by name; the executor makes the Job its owner when it creates it. Policies add up:
     * an operator who wants something else to reach the pods (a metrics scraper) adds a policy of their own.
     */
    public NetworkPolicy renderNetworkPolicy(EnsureJob command) {
        TpuSlice slice = slice(command);
        Map<String, String> pods = podSelector(command.k8sJobName());
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName(command.k8sJobName())
                .withNamespace(namespace)
                .withLabels(ownership.labels(command.jobId(), slice.topology().text()))
                .withAnnotations(Map.of(FalconLabels.ANNOTATION_JOB_ID, command.jobId()))
                .endMetadata()
                .withNewSpec()
                .withNewPodSelector()
                .withMatchLabels(pods)
                .endPodSelector()
                .withPolicyTypes("Ingress")
                .addNewIngress()
                .addNewFrom()
                .withNewPodSelector()
                .withMatchLabels(pods)
                .endPodSelector()
                .endFrom()
                .endIngress()
                .endSpec()
                .build();
    }

    /** The labels every pod of the Kubernetes Job, and only those, carry: this installation's, of that Job. */
    private Map<String, String> podSelector(String k8sJobName) {
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(FalconLabels.MANAGED_BY, FalconLabels.MANAGED_BY_VALUE);
        selector.put(FalconLabels.INSTALLATION, ownership.installation());
        selector.put(FalconLabels.K8S_JOB, k8sJobName);
        return selector;
    }

    /**
     * Policy every rendered Job must pass, whatever the spec grows into: no privileged containers, no hostPath
     * volumes, no host network / PID / IPC, no Kubernetes API token mounted.
     */
    public static void validate(Job job) {
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        String name = job.getMetadata().getName();
        if (!Boolean.FALSE.equals(pod.getAutomountServiceAccountToken())) {
            throw new InvalidJobException("job " + name + " refused: its pods must not mount a Kubernetes API token");
        }
        if (Boolean.TRUE.equals(pod.getHostNetwork())) {
            throw new InvalidJobException("job " + name + " refused: hostNetwork is not allowed");
        }
        if (Boolean.TRUE.equals(pod.getHostPID()) || Boolean.TRUE.equals(pod.getHostIPC())) {
            throw new InvalidJobException("job " + name + " refused: hostPID/hostIPC are not allowed");
        }
        for (Volume v : pod.getVolumes() == null ? List.<Volume>of() : pod.getVolumes()) {
            if (v.getHostPath() != null) {
                throw new InvalidJobException(
                        "job " + name + " refused: hostPath volume '" + v.getName() + "' is not allowed");
            }
        }
        List<Container> all = new ArrayList<>();
        if (pod.getContainers() != null) {
            all.addAll(pod.getContainers());
        }
        if (pod.getInitContainers() != null) {
            all.addAll(pod.getInitContainers());
        }
        for (Container c : all) {
            var sc = c.getSecurityContext();
            if (sc != null
                    && (Boolean.TRUE.equals(sc.getPrivileged())
                            || Boolean.TRUE.equals(sc.getAllowPrivilegeEscalation()))) {
                throw new InvalidJobException(
                        "job " + name + " refused: container '" + c.getName() + "' asks for privileged mode");
            }
        }
    }

    /**
     * The container's shell script. Cloud Storage FUSE uploads a written file when it is closed (or fsync'ed, which
     * streaming writes do not even honour), so the workload's stdout and stderr go to a local file, which a background
     * loop copies whole to {@code <logDir>/<pod>.log} every {@code copyEverySeconds} (each copy closes, so the object
     * is visible with the log so far), and once more when the workload ends. The shell stays as PID 1 to do that last
     * copy: it forwards SIGTERM/SIGINT to the workload, waits for it, and exits with its exit status (137 after a
     * SIGKILL, as before), so Falcon's failure reasons still see the workload's own code.
     */
    static String shellScript(String logDir, String localDir, long copyEverySeconds, List<String> argv) {
        StringBuilder b = new StringBuilder();
        b.append("mkdir -p ")
                .append(quote(logDir))
                .append(' ')
                .append(quote(localDir))
                .append(" || exit 1\n");
        b.append("log=")
                .append(quote(localDir))
                .append("/\"${")
                .append(POD_NAME_ENV)
                .append("}.log\"\n");
        b.append("dst=")
                .append(quote(logDir))
                .append("/\"${")
                .append(POD_NAME_ENV)
                .append("}.log\"\n");
        b.append(": >>\"$log\"\n");
        b.append("(while sleep ").append(copyEverySeconds).append("; do cp \"$log\" \"$dst\"; done) &\n");
        b.append("copier=$!\n");
        for (int i = 0; i < argv.size(); i++) {
            b.append(i == 0 ? "" : " ").append(quote(argv.get(i)));
        }
        b.append(" >>\"$log\" 2>&1 &\n");
        b.append("child=$!\n");
        b.append("trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT\n");
        b.append("wait \"$child\"; rc=$?\n");
        b.append("while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; rc=$?; done\n");
        b.append("kill \"$copier\" 2>/dev/null\n");
        b.append("cp \"$log\" \"$dst\"\n");
        b.append("exit \"$rc\"\n");
        return b.toString();
    }

    static String quote(String s) {
        return "'" + s.replace("'", "'\"'\"'") + "'";
    }

    /**
     * implicit-dirs (the log directories are written without directory objects); with {@link Identity#ACTOR}, only
     * the actor's folder of the bucket ({@code only-dir}): the pod sees /gcs/logs/JOB as before, stored under
     * {@code gs://BUCKET/actors/<key>/}.
     */
    private String mountOptions(Optional<String> actor) {
        return identity == Identity.ACTOR
                ? "implicit-dirs,only-dir=" + actorFolder(actor.orElseThrow())
                : "implicit-dirs";
    }

    private static List<EnvVar> env(String jobId, JobSpec spec, Optional<String> actor) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder()
                .withName(POD_NAME_ENV)
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .build());
        env.add(new EnvVarBuilder().withName(JOB_ID_ENV).withValue(jobId).build());
        Map<String, EnvVar> variables = new TreeMap<>();
        spec.env()
                .forEach((k, v) -> variables.put(
                        k, new EnvVarBuilder().withName(k).withValue(v).build()));
        // only the reference: the kubelet reads the value from the actor's Secret when it starts the container
        spec.secretEnv()
                .forEach((k, ref) -> variables.put(
                        k,
                        new EnvVarBuilder()
                                .withName(k)
                                .withNewValueFrom()
                                .withNewSecretKeyRef()
                                .withName(JobSpec.secretName(actor.orElseThrow(), ref.name()))
                                .withKey(ref.key())
                                .endSecretKeyRef()
                                .endValueFrom()
                                .build()));
        env.addAll(variables.values());
        return env;
    }
    /** The slice the command's pool provides (machine type, VMs, chips per VM), as NodePoolSpec created it. */
    private static TpuSlice slice(EnsureJob command) {
        try {
            return TpuSlice.resolve(command.tpuType(), command.topology());
        } catch (IllegalArgumentException e) {
            throw new InvalidJobException(e.getMessage());
        }
    }

    private static final java.util.regex.Pattern DNS_SUBDOMAIN =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /** The cluster's service account for the job's pods, checked to be a Kubernetes object name. */
    private static java.util.Optional<String> serviceAccount(EnsureJob command) {
        java.util.Optional<String> account = command.cluster() == null
                ? java.util.Optional.empty()
                : command.cluster().k8sServiceAccount().filter(a -> !a.isBlank());
        if (account.isPresent()
                && (account.get().length() > 253
                        || !DNS_SUBDOMAIN.matcher(account.get()).matches())) {
            throw new InvalidJobException("cluster's k8s_service_account '" + account.get()
                    + "' is not a Kubernetes service account name (lowercase DNS subdomain, at most 253)");
        }
        return account;
    }
}
