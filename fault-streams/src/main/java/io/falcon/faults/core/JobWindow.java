package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The RFC's job-level fault manager: faults of one job, in receive-time order, are decided first fault first once
 * that fault's window (plus grace) has passed in event time. The first fault is a software fault when the same code
 * appears on a different device of the job within the window; then it and its same-code peers in the window are
 * not counted. Otherwise it and the same-device same-code faults in the window are counted (deleteSameWithFirstFault).
 * Everything else stays pending for the next round.
 *
 * <p>Each decided round is kept as a {@link Round} for as long as a fault of it may still arrive (the allowed
 * lateness): a fault that arrives after its round was decided is judged by {@link #judgeLate} as the RFC's
 * algorithm judges it with every fault present, so a late peer of a software-fault storm is not counted on its own.
 */
public final class JobWindow {
    /** Receive-time order, arrival order among equal times. */
    public static final Comparator<DeviceFault> ORDER = Comparator.comparingLong(DeviceFault::receiveTimeMs);

    private JobWindow() {}

    /** The outcome of one fault decided by the job window. */
    public sealed interface Outcome {
        DeviceFault fault();
    }

    /** Hardware fault: passes on to the frequency counter. */
    public record Counted(DeviceFault fault) implements Outcome {}

    /**
     * Software fault: not counted. windowDevices are the node/device refs with the same code in the window
     * (shared by the whole group, so a storm does not copy it per fault).
     */
    public record Software(DeviceFault fault, List<String> windowDevices) implements Outcome {
        public Software {
            windowDevices = List.copyOf(windowDevices);
        }

        /** The other devices, at most {@link #MAX_PEERS_LISTED} of them. */
        public List<String> listedPeers() {
            // the fault's own ref once: a storm lists peers for each of thousands of faults
            String self = fault.deviceRef();
            List<String> peers = new ArrayList<>(MAX_PEERS_LISTED);
            for (String ref : windowDevices) {
                if (peers.size() == MAX_PEERS_LISTED) {
                    break;
                }
                if (!ref.equals(self)) {
                    peers.add(ref);
                }
            }
            return List.copyOf(peers);
        }

        public int peerCount() {
            return windowDevices.size() - 1;
        }
    }

    /**
     * A decided round of one code: its first fault (receive time, node/device) and the earliest fault of the round
     * on another device ({@link #NO_OTHER} and "" when every fault of the round was on the first fault's device,
     * which makes the round counted; a software round always has one). The faults of one code are decided in rounds
     * independently of the job's other codes, so this is all a late fault of the code needs to be judged as the
     * RFC's algorithm would judge it within the round (or within its own window, reaching into later rounds).
     */
    public record Round(String code, long firstMs, String firstDevice, long otherMs, String otherDevice) {
        public static final long NO_OTHER = Long.MAX_VALUE;

        public boolean software() {
            return !otherDevice.isEmpty();
        }

        /** Whether a fault received at ms falls within the round's window (first .. first + window). */
        boolean contains(long ms, long windowMs) {
            return firstMs <= ms && ms <= firstMs + windowMs;
        }

        /** The round with a fault on another device than its first at ms, if that is the earliest such fault. */
        Round withOther(long ms, String device) {
            return ms < otherMs ? new Round(code, firstMs, firstDevice, ms, device) : this;
        }
    }

    public record Decision(List<Outcome> decided, List<DeviceFault> remaining, List<Round> rounds) {
        public Decision {
            decided = List.copyOf(decided);
            remaining = List.copyOf(remaining);
            rounds = List.copyOf(rounds);
        }
    }

    /**
     * The judgement of a fault that arrived after a decided round of its job and code could have held it: its
     * outcome, and the job's rounds after it (a counted round joined by a fault of another device is a software
     * round for the faults that arrive after it; a fault decided on its own window is kept as a round).
     */
    public record Late(Outcome outcome, List<Round> rounds) {
        public Late {
            rounds = List.copyOf(rounds);
        }
    }

    /**
     * The last instant (event time) of the window opened by a fault: it is decided once event time is past it, so
     * a fault stamped exactly first + window (a peer) that arrives at that instant is still in the window.
     */
    public static long decidableAt(long firstReceiveMs, long windowMs, long graceMs) {
        return firstReceiveMs + windowMs + graceMs;
    }

    /** Whether the window opened at firstReceiveMs may be decided at event time nowMs. */
    public static boolean isDue(long firstReceiveMs, long windowMs, long graceMs, long nowMs) {
        return decidableAt(firstReceiveMs, windowMs, graceMs) < nowMs;
    }

    /** Whether a fault is later than the allowed lateness behind the window's event time. */
    public static boolean isTooLate(long receiveMs, long eventTimeMs, long allowedLatenessMs) {
        return receiveMs < eventTimeMs - allowedLatenessMs;
    }

    /**
     * Decides every leading fault whose window has passed at nowMs. pending must be in {@link #ORDER}; the faults
     * not decided are returned in the same order.
     *
     * <p>The RFC's loop (decide the first fault with its same-code faults in its window, then the first of what is
     * left, while it is due) only ever removes faults of the first fault's code, so the faults of one code are decided
     * in rounds independently of the other codes: each code's faults are walked once, round after round, and the
     * rounds are emitted in the order of their first faults, which is the order the loop decides them in. Linear in
     * the faults, however many distinct codes the job has (the loop scanned and copied what was left for every
     * round: a storm of n distinct codes in one window cost O(n^2)).
     */
    public static Decision decideDue(List<DeviceFault> pending, long windowMs, long graceMs, long nowMs) {
        int n = pending.size();
        if (n == 0 || !isDue(pending.get(0).receiveTimeMs(), windowMs, graceMs, nowMs)) {
            return new Decision(List.of(), pending, List.of());
        }
        // Only a due fault opens a round, and a fault takes part in one only if it has the code of a due fault and
        // is within that fault's window, so it was received before nowMs - grace: the faults from there on are left
        // as they are, and so are those of codes without a due fault.
        int due = 0;
        while (due < n && isDue(pending.get(due).receiveTimeMs(), windowMs, graceMs, nowMs)) {
            due++;
        }
        int end = due;
        while (end < n && pending.get(end).receiveTimeMs() + graceMs < nowMs) {
            end++;
        }
        // the faults of each code with a due fault, chained by index in receive-time order
        int[] nextOfCode = new int[end];
        java.util.Arrays.fill(nextOfCode, -1);
        int[] firstOfCode = new int[due];
        int codes = 0;
        Map<String, Integer> lastOfCode = new HashMap<>();
        for (int i = 0; i < due; i++) {
            Integer before = lastOfCode.put(pending.get(i).faultCode(), i);
            if (before == null) {
                firstOfCode[codes++] = i;
            } else {
                nextOfCode[before] = i;
            }
        }
        for (int i = due; i < end; i++) {
            Integer before = lastOfCode.replace(pending.get(i).faultCode(), i);
            if (before != null) {
                nextOfCode[before] = i;
            }
        }
        // per code, its rounds while their first fault is due: roundEnd[first] is the chain index after the round
        int[] roundEnd = new int[end];
        boolean[] opens = new boolean[end];
        for (int c = 0; c < codes; c++) {
            int first = firstOfCode[c];
            while (first != -1 && isDue(pending.get(first).receiveTimeMs(), windowMs, graceMs, nowMs)) {
                long last = pending.get(first).receiveTimeMs() + windowMs;
                int after = nextOfCode[first];
                while (after != -1 && pending.get(after).receiveTimeMs() <= last) {
                    after = nextOfCode[after];
                }
                opens[first] = true;
                roundEnd[first] = after;
                first = after;
            }
        }
        List<Outcome> decided = new ArrayList<>();
        List<Round> rounds = new ArrayList<>();
        List<DeviceFault> remaining = new ArrayList<>(n);
        boolean[] done = new boolean[end];
        for (int i = 0; i < end; i++) {
            if (opens[i]) {
                decideRound(pending, i, roundEnd[i], nextOfCode, done, decided, rounds);
            } else if (!done[i]) {
                remaining.add(pending.get(i));
            }
        }
        remaining.addAll(pending.subList(end, n));
        return new Decision(decided, remaining, rounds);
    }

    /**
     * The round opened by the fault at index first (its same-code faults chained up to, not including, end): a
     * software round when one of them is on another device than the first, else counted.
     */
    private static void decideRound(
            List<DeviceFault> faults,
            int first,
            int end,
            int[] nextOfCode,
            boolean[] done,
            List<Outcome> decided,
            List<Round> rounds) {
        DeviceFault head = faults.get(first);
        DeviceFault other = null;
        for (int i = nextOfCode[first]; i != end; i = nextOfCode[i]) {
            if (!sameDevice(faults.get(i), head)) {
                other = faults.get(i); // in receive-time order: the earliest on another device
                break;
            }
        }
        rounds.add(new Round(
                head.faultCode(),
                head.receiveTimeMs(),
                head.deviceRef(),
                other == null ? Round.NO_OTHER : other.receiveTimeMs(),
                other == null ? "" : other.deviceRef()));
        done[first] = true;
        if (other == null) {
            // every fault of the round is on the first fault's device: all counted
            decided.add(new Counted(head));
            for (int i = nextOfCode[first]; i != end; i = nextOfCode[i]) {
                done[i] = true;
                decided.add(new Counted(faults.get(i)));
            }
            return;
        }
        Set<String> group = new LinkedHashSet<>();
        group.add(head.deviceRef());
        for (int i = nextOfCode[first]; i != end; i = nextOfCode[i]) {
            group.add(faults.get(i).deviceRef());
        }
        // shared by the whole group, so a storm does not copy it per fault
        List<String> peers = List.copyOf(group);
        decided.add(new Software(head, peers));
        for (int i = nextOfCode[first]; i != end; i = nextOfCode[i]) {
            done[i] = true;
            decided.add(new Software(faults.get(i), peers));
        }
    }

    /**
     * Judges a fault of a job against the job's decided rounds (any code), as the RFC's algorithm judges it with
     * every fault present: the faults of one code are decided in rounds that each span a first fault's window.
     *
     * <ul>
     *   <li>Its receive time falls within a decided round of its code: it is part of that round, a software fault
     *       when the round had a fault on another device than this one (or was a software round), else counted
     *       with the round's faults of its device.
     *   <li>It falls within no decided round: it opens a window of its own, and is a software fault when a decided
     *       round within that window had a fault on another device within it.
     *   <li>Otherwise (empty) nothing decided says anything about it: it is held and decided like any fault.
     * </ul>
     */
    public static Optional<Late> judgeLate(DeviceFault fault, List<Round> decided, long windowMs) {
        String code = fault.faultCode();
        long at = fault.receiveTimeMs();
        // Both cases need a round of the code whose window does not end before the fault. A fault in time never
        // has one (its rounds were decided once event time passed their window): no allocation for it.
        boolean reaches = false;
        for (Round round : decided) {
            if (at <= round.firstMs() + windowMs && round.code().equals(code)) {
                reaches = true;
                break;
            }
        }
        if (!reaches) {
            return Optional.empty();
        }
        String self = fault.deviceRef();
        Set<String> peers = new LinkedHashSet<>();
        peers.add(self);
        boolean joined = false;
        boolean software = false;
        List<Round> next = new ArrayList<>(decided.size() + 1);
        for (Round round : decided) {
            if (round.code().equals(code) && round.contains(at, windowMs)) {
                joined = true;
                boolean otherFirst = !round.firstDevice().equals(self);
                software |= otherFirst || round.software();
                if (otherFirst) {
                    peers.add(round.firstDevice());
                    round = round.withOther(at, self);
                } else if (round.software()) {
                    peers.add(round.otherDevice());
                }
            }
            next.add(round);
        }
        if (joined) {
            return Optional.of(new Late(software ? new Software(fault, List.copyOf(peers)) : new Counted(fault), next));
        }
        // Its own window (at .. at + window) reaches into decided rounds that begin after it.
        long peerMs = Round.NO_OTHER;
        String peer = "";
        for (Round round : decided) {
            if (!round.code().equals(code) || round.firstMs() <= at || round.firstMs() > at + windowMs) {
                continue;
            }
            if (!round.firstDevice().equals(self)) {
                peers.add(round.firstDevice());
                if (round.firstMs() < peerMs) {
                    peerMs = round.firstMs();
                    peer = round.firstDevice();
                }
            } else if (round.software() && round.otherMs() <= at + windowMs) {
                peers.add(round.otherDevice());
                if (round.otherMs() < peerMs) {
                    peerMs = round.otherMs();
                    peer = round.otherDevice();
                }
            }
        }
        if (peer.isEmpty()) {
            return Optional.empty();
        }
        next.add(new Round(code, at, self, peerMs, peer));
        return Optional.of(new Late(new Software(fault, List.copyOf(peers)), next));
    }

    /** The rounds that a fault admitted at event time nowMs (allowed lateness behind it) can still be judged by. */
    public static List<Round> stillJudging(List<Round> rounds, long windowMs, long allowedLatenessMs, long nowMs) {
        List<Round> kept = new ArrayList<>(rounds.size());
        for (Round round : rounds) {
            if (!isExpired(round.firstMs(), windowMs, allowedLatenessMs, nowMs)) {
                kept.add(round);
            }
        }
        return kept.size() == rounds.size() ? rounds : kept;
    }

    /**
     * Whether a round opened at firstMs can no longer judge a fault: every fault admitted at nowMs was received
     * after the round's window (a fault more than the allowed lateness behind is counted directly).
     */
    public static boolean isExpired(long firstMs, long windowMs, long allowedLatenessMs, long nowMs) {
        return firstMs + windowMs < nowMs - allowedLatenessMs;
    }

    /** Decides everything pending, as if the windows had all passed (end of a replay trace). */
    public static Decision decideAll(List<DeviceFault> pending, long windowMs) {
        return decideDue(pending, windowMs, 0, Long.MAX_VALUE - windowMs);
    }

    /** Evidence lists at most this many peers; a storm's full list would dwarf the verdict. */
    public static final int MAX_PEERS_LISTED = 16;

    static boolean sameDevice(DeviceFault a, DeviceFault b) {
        return a.clusterId().equals(b.clusterId())
                && a.nodeName().equals(b.nodeName())
                && a.deviceName().equals(b.deviceName());
    }
}
