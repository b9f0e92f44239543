package io.falcon.bench.chaos;

import io.falcon.cli.JobSubmission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The jobs of a chaos run, each with the knob that decides its fate and the final row that fate dictates. Drawn from
 * a seed, so a run can be repeated. fleet-sim reads the knobs from the spec's env (FALCON_SIM_*), as a real cluster
 * would ignore them.
 */
public final class Workload {

    /** What a job is made to do. */
    public enum Knob {
        SUCCEED,
        OOM,
        EXIT_NON_ZERO,
        IMAGE_PULL,
        INVALID_SPEC,
        /** Runs long, and is aborted once seen in its {@link Planned#abortIn()} phase (or the next one). */
        ABORT
    }

    /** Where an abort is aimed: the row's phase as the upper components see it. */
    public enum Phase {
        SUBMITTED,
        WAITING,
        PROVISIONING,
        DISPATCHING,
        RUNNING;

        /** The phase a row shows: Pending (no reason yet), Pending/Waiting, Pending/Provisioning (or ClusterBusy, WaitingForNode), Pending/Dispatching, Running. */
        public static Optional<Phase> of(String status, Optional<String> reason) {
            if (status.equals("Running")) {
                return Optional.of(RUNNING);
            }
            if (!status.equals("Pending")) {
                return Optional.empty();
            }
            return Optional.of(
                    switch (reason.orElse("")) {
                        case "" -> SUBMITTED;
                        case "Waiting" -> WAITING;
                        case "Provisioning", "ClusterBusy", "WaitingForNode" -> PROVISIONING;
                        case "Dispatching" -> DISPATCHING;
                        default -> SUBMITTED;
                    });
        }
    }

    /** The final row a job must end with. */
    public record Expected(String status, Optional<String> reason) {
        static final Expected SUCCEEDED = new Expected("Succeeded", Optional.empty());
        static final Expected JOB_FAILED = new Expected("Failed", Optional.of("JobFailed"));
        static final Expected INVALID = new Expected("Failed", Optional.of("InvalidSpec"));
        static final Expected ABORTED = new Expected("Aborted", Optional.empty());

        public boolean matches(String finalStatus, Optional<String> finalReason) {
            return status.equals(finalStatus) && (reason.isEmpty() || reason.equals(finalReason));
        }

        @Override
        public String toString() {
            return status + reason.map(r -> "/" + r).orElse("");
        }
    }

    /** One job of the run. */
    public record Planned(JobSubmission.Request request, Knob knob, Optional<Phase> abortIn) {

        /** The final row when its abort was not applied (the row was final already) or it was never aborted. */
        public Expected expectedWithoutAbort() {
            return switch (knob) {
                case SUCCEED, ABORT -> Expected.SUCCEEDED;
                case OOM, EXIT_NON_ZERO, IMAGE_PULL -> Expected.JOB_FAILED;
                case INVALID_SPEC -> Expected.INVALID;
            };
        }

        public Expected expected(boolean abortApplied) {
            return abortApplied ? Expected.ABORTED : expectedWithoutAbort();
        }

        public String id() {
            return request.id();
        }
    }

    private static final List<String> ACTORS = List.of("alice", "bob", "carol", "dave", "erin", "frank");
    private static final List<String> TOPOLOGIES = List.of("2x2", "2x4");

    private Workload() {}

    public static List<Planned> plan(long seed, int jobs, String runId) {
        Random random = new Random(seed);
        List<Planned> out = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            String id = runId + "-" + i;
            String actor = ACTORS.get(random.nextInt(ACTORS.size()));
            String topology = TOPOLOGIES.get(random.nextInt(TOPOLOGIES.size()));
            Knob knob = knob(random.nextInt(100));
            Optional<Phase> abortIn =
                    knob == Knob.ABORT ? Optional.of(Phase.values()[i / 7 % Phase.values().length]) : Optional.empty();
            double seconds = switch (knob) {
                case ABORT -> 45;
                case SUCCEED -> 0.5 + random.nextInt(60) / 10.0;
                default -> 0.5 + random.nextInt(25) / 10.0;
            };
            String spec = spec(knob, seconds);
            Optional<String> supply = random.nextInt(10) == 0 ? Optional.of("flex-start") : Optional.empty();
            out.add(new Planned(
                    new JobSubmission.Request(
                            id,
                            actor,
                            "chaos-" + knob.name().toLowerCase(),
                            "v6e",
                            topology,
                            spec,
                            supply,
                            Optional.of(3600L)),
                    knob,
                    abortIn));
        }
        return out;
    }

    private static Knob knob(int percent) {
        if (percent < 58) {
            return Knob.SUCCEED;
        }
        if (percent < 66) {
            return Knob.OOM;
        }
        if (percent < 74) {
            return Knob.EXIT_NON_ZERO;
        }
        if (percent < 78) {
            return Knob.IMAGE_PULL;
        }
        if (percent < 80) {
            return Knob.INVALID_SPEC;
        }
        return Knob.ABORT;
    }

    private static String spec(Knob knob, double seconds) {
        String image = knob == Knob.IMAGE_PULL
                ? "us-docker.pkg.dev/falcon-chaos/does-not-exist/train:1"
                : "us-docker.pkg.dev/falcon-chaos/jobs/train:1";
        String env = "\"FALCON_SIM_DURATION_SECONDS\":\"" + seconds + "\"";
        if (knob == Knob.OOM) {
            env += ",\"FALCON_SIM_OOM\":\"true\"";
        } else if (knob == Knob.EXIT_NON_ZERO) {
            env += ",\"FALCON_SIM_EXIT_CODE\":\"3\"";
        }
        if (knob == Knob.INVALID_SPEC) {
            // no image: the design's InvalidSpec naming the field
            return "{\"command\":[\"python\",\"train.py\"],\"env\":{" + env + "}}";
        }
        return "{\"image\":\"" + image + "\",\"command\":[\"python\",\"train.py\"],\"env\":{" + env + "}}";
    }
}
