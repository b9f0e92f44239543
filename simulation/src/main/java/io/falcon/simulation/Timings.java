package io.falcon.simulation;

import java.time.Duration;
import java.util.Random;

/**
 * How long the simulated fleet takes for what it does, when nothing goes wrong. {@link Drawn} is the fault model's
 * own (wide ranges, drawn in the order the seeds of {@code bench/simulate} were fixed with, so every seed replays as
 * it did); {@link Gke} is what GKE's documentation and published observations say, with the limit on node-pool
 * operations GKE runs at once on one cluster: {@code bench/goodput} measures Falcon against it (docs/performance.md
 * cites the sources).
 */
sealed interface Timings {
    /** A pool's create operation, PROVISIONING until its VMs are up (a flex-start pool: until it is RUNNING empty). */
    Duration poolCreate(Random r, int hosts);

    /** How long a flex-start pool stays invisible to reads after its create was accepted. */
    Duration flexInvisible(Random r);

    /** The window in which the pool's nodes register once its VMs are up. */
    Duration nodesRegisterWithin(Random r, int hosts);

    /** From a node's registration to Ready (kubelet, TPU device plugin). */
    Duration nodeReady(Random r);

    /** A flex-start scale-up's wait for capacity, from a pending pod to its VMs. */
    Duration flexCapacity(Random r);

    /** A pool's delete operation, until its VMs are gone (and its reservation capacity is free). */
    Duration poolDelete(Random r, int hosts);

    /** From the pods' binding to their nodes to their containers running (image pull, start). */
    Duration podStart(Random r);

    /** Node-pool operations (create, delete) GKE runs at once on one cluster; 0 for no limit. */
    int poolOperationsAtOnce();

    /** The fault model's timings: the draws every seed of bench/simulate was fixed with. */
    record Drawn() implements Timings {
        @Override
        public Duration poolCreate(Random r, int hosts) {
            return Duration.ofSeconds(20 + r.nextInt(480));
        }

        @Override
        public Duration flexInvisible(Random r) {
            return Duration.ofSeconds(r.nextInt(90));
        }

        @Override
        public Duration nodesRegisterWithin(Random r, int hosts) {
            return Duration.ofSeconds(5 + r.nextInt(180));
        }

        @Override
        public Duration nodeReady(Random r) {
            return Duration.ofSeconds(2 + r.nextInt(20));
        }

        @Override
        public Duration flexCapacity(Random r) {
            return Duration.ofSeconds(20 + r.nextInt(300));
        }

        @Override
        public Duration poolDelete(Random r, int hosts) {
            return Duration.ofSeconds(10 + r.nextInt(170));
        }

        @Override
        public Duration podStart(Random r) {
            return Duration.ofSeconds(1 + r.nextInt(10));
        }

        @Override
        public int poolOperationsAtOnce() {
            return 0;
        }
    }

    /**
     * GKE's timings for TPU slice node pools (docs/performance.md, "Goodput at GKE timings", cites each figure). A
     * duration is drawn uniformly within its published range, so a seed gives one table and the spread shows.
     *
     * @param createBase a pool's create operation for a single-host slice
     * @param createPerHost what each further VM of a multi-host slice adds to it
     * @param createJitter the width of the uniform draw on top
     * @param deleteBase a pool's delete operation
     * @param deleteJitter its spread
     * @param nodesWithin the nodes' registration once the VMs are up
     * @param ready a node's registration to Ready
     * @param flexWait a flex-start scale-up's typical wait for capacity (minimum)
     * @param flexJitter its spread
     * @param podStart image pull and start of a TPU workload's container
     * @param operationsAtOnce node-pool operations GKE runs at once on one cluster
     */
    record Gke(
            Duration createBase,
            Duration createPerHost,
            Duration createJitter,
            Duration deleteBase,
            Duration deleteJitter,
            Duration nodesWithin,
            Duration ready,
            Duration flexWait,
            Duration flexJitter,
            Duration podStart,
            int operationsAtOnce)
            implements Timings {

        /** The published figures (docs/performance.md). */
        static final Gke PUBLISHED = new Gke(
                Duration.ofMinutes(5),
                Duration.ZERO,
                Duration.ofMinutes(5),
                Duration.ofMinutes(3),
                Duration.ofMinutes(2),
                Duration.ofSeconds(60),
                Duration.ofSeconds(30),
                Duration.ofMinutes(10),
                Duration.ofMinutes(20),
                Duration.ofSeconds(60),
                0);

        @Override
        public Duration poolCreate(Random r, int hosts) {
            return createBase
                    .plus(createPerHost.multipliedBy(Math.max(0, hosts - 1)))
                    .plus(spread(r, createJitter));
        }

        @Override
        public Duration flexInvisible(Random r) {
            return spread(r, Duration.ofSeconds(30));
        }

        @Override
        public Duration nodesRegisterWithin(Random r, int hosts) {
            return nodesWithin;
        }

        @Override
        public Duration nodeReady(Random r) {
            return ready.plus(spread(r, ready));
        }

        @Override
        public Duration flexCapacity(Random r) {
            return flexWait.plus(spread(r, flexJitter));
        }

        @Override
        public Duration poolDelete(Random r, int hosts) {
            return deleteBase.plus(spread(r, deleteJitter));
        }

        @Override
        public Duration podStart(Random r) {
            return podStart.plus(spread(r, podStart));
        }

        @Override
        public int poolOperationsAtOnce() {
            return operationsAtOnce;
        }

        /** The same timings with GKE running at most this many node-pool operations at once on a cluster. */
        Gke withOperationsAtOnce(int k) {
            return new Gke(
                    createBase,
                    createPerHost,
                    createJitter,
                    deleteBase,
                    deleteJitter,
                    nodesWithin,
                    ready,
                    flexWait,
                    flexJitter,
                    podStart,
                    k);
        }

        /** The typical (median) create operation of a slice of this many VMs. */
        Duration typicalCreate(int hosts) {
            return createBase
                    .plus(createPerHost.multipliedBy(Math.max(0, hosts - 1)))
                    .plus(createJitter.dividedBy(2));
        }

        /** The typical (median) time from a create request to a slice's pods running, for the bounds. */
        Duration typicalAcquisition(int hosts) {
            return typicalCreate(hosts)
                    .plus(nodesWithin)
                    .plus(ready.multipliedBy(3).dividedBy(2))
                    .plus(podStart.multipliedBy(3).dividedBy(2));
        }

        private static Duration spread(Random r, Duration width) {
            return width.isZero() ? Duration.ZERO : Duration.ofMillis((long) (r.nextDouble() * width.toMillis()));
        }
    }
}
