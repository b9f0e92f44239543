package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ResourceNamesTest {
    private static final String FALCON = ResourceNames.DEFAULT_INSTALLATION;

    @Test
    void aNameIsAReadableHeadAndSixtyFourBitsOfHash() {
        String name = ResourceNames.nodePool(FALCON, "0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718");
        assertThat(name).matches("falcon-0f8a3c1e-9b2d-4-[0-9a-f]{16}").hasSizeLessThanOrEqualTo(40);
        assertThat(ResourceNames.nodePool(FALCON, "0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718"))
                .as("stable: a redelivered command finds what the first created")
                .isEqualTo(name);
        assertThat(ResourceNames.nodePool(FALCON, "Job_42")).isNotEqualTo(ResourceNames.nodePool(FALCON, "job-42"));
    }

    @Test
    void anIdThatIsAnotherJobsNameDoesNotGetThatName() {
        String victim = ResourceNames.nodePool(FALCON, "train-7");
        String k8sVictim = ResourceNames.k8sJob(FALCON, "train-7");
        // the tenant submits the victim's names (seen in its row) as job ids of its own
        assertThat(ResourceNames.nodePool(FALCON, victim)).isNotEqualTo(victim);
        assertThat(ResourceNames.k8sJob(FALCON, k8sVictim)).isNotEqualTo(k8sVictim);
        assertThat(ResourceNames.nodePool(FALCON, victim.substring(ResourceNames.PREFIX.length())))
                .isNotEqualTo(victim);
        // and a short DNS-label id does not name itself either
        assertThat(ResourceNames.nodePool(FALCON, "job-42")).isNotEqualTo("falcon-job-42");
    }

    @Test
    void twoInstallationsNameOneJobIdDifferently() {
        assertThat(ResourceNames.nodePool("falcon", "train-7"))
                .isNotEqualTo(ResourceNames.nodePool("falcon-b", "train-7"));
        assertThat(ResourceNames.k8sJob("falcon", "train-7")).isNotEqualTo(ResourceNames.k8sJob("falcon-b", "train-7"));
    }

    @Property
    void everyIdMapsToAValidNodePoolName(@ForAll String jobId) {
        String name = ResourceNames.nodePool(FALCON, jobId);
        assertThat(name).matches("falcon-[a-z0-9]([a-z0-9-]*[a-z0-9])?").hasSizeLessThanOrEqualTo(40);
    }

    @Test
    void anActorKeyIsAReadableHeadAndSixtyFourBitsOfHashOfTheExactActor() {
        String key = ResourceNames.actorKey("Team A / vision");
        assertThat(key).matches("falcon-actor-team-a-vision-[0-9a-f]{16}");
        assertThat(ResourceNames.actorKey("Team A / vision")).as("stable").isEqualTo(key);
        assertThat(ResourceNames.actorKey("team-a-vision"))
                .as("actors that read alike are told apart by the hash")
                .isNotEqualTo(key);
        assertThat(ResourceNames.actorKey("日本")).matches("falcon-actor-[0-9a-f]{16}");
        assertThat(ResourceNames.actorSecret("team-a", "hf-token"))
                .isEqualTo(ResourceNames.actorKey("team-a") + ".hf-token");
    }

    @Test
    void noActorCanNameAnotherActorsSecret() {
        // an actor that is a victim's key (or its key plus more) gets a key of its own, and a Secret name of one actor
        // never starts with another's key and a dot
        String victim = ResourceNames.actorKey("team-a");
        for (String attacker : java.util.List.of(victim, victim + "-x", victim.substring(13), "team-a ", "TEAM-A")) {
            String key = ResourceNames.actorKey(attacker);
            assertThat(key).as(attacker).isNotEqualTo(victim);
            assertThat(ResourceNames.actorSecret(attacker, "s")).as(attacker).doesNotStartWith(victim + ".");
        }
    }

    @Property
    void everyActorMapsToADnsLabelWithoutDots(@ForAll String actor) {
        assertThat(ResourceNames.actorKey(actor))
                .matches("falcon-actor-[a-z0-9]([a-z0-9-]*[a-z0-9])?")
                .hasSizeLessThanOrEqualTo(63);
    }
}
