package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
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
     */
    public static Decision decideDue(List<DeviceFault> pending, long windowMs, long graceMs, long nowMs) {
        List<DeviceFault> rest = new ArrayList<>(pending);
        List<Outcome> decided = new ArrayList<>();
        List<Round> rounds = new ArrayList<>();
        while (!rest.isEmpty() && isDue(rest.get(0).receiveTimeMs(), windowMs, graceMs, nowMs)) {
            rest = decideFirst(rest, windowMs, decided, rounds);
        }
        return new Decision(decided, rest, rounds);
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

    private static List<DeviceFault> decideFirst(
            List<DeviceFault> faults, long windowMs, List<Outcome> decided, List<Round> rounds) {
        DeviceFault first = faults.get(0);
        boolean[] sameCodeInWindow = new boolean[faults.size()];
        boolean software = false;
        DeviceFault other = null;
        Set<String> group = new LinkedHashSet<>();
        group.add(first.deviceRef());
        for (int i = 1; i < faults.size(); i++) {
            DeviceFault f = faults.get(i);
            if (f.faultCode().equals(first.faultCode()) && f.receiveTimeMs() <= first.receiveTimeMs() + windowMs) {
                sameCodeInWindow[i] = true;
                group.add(f.deviceRef());
                if (!software && !sameDevice(f, first)) {
                    software = true;
                    other = f; // the faults are in receive-time order: the earliest on another device
                }
            }
        }
        rounds.add(new Round(
                first.faultCode(),
                first.receiveTimeMs(),
                first.deviceRef(),
                other == null ? Round.NO_OTHER : other.receiveTimeMs(),
                other == null ? "" : other.deviceRef()));
        List<DeviceFault> remaining = new ArrayList<>();
        if (software) {
            List<String> peers = List.copyOf(group);
            decided.add(new Software(first, peers));
            for (int i = 1; i < faults.size(); i++) {
                DeviceFault f = faults.get(i);
                if (sameCodeInWindow[i]) {
                    decided.add(new Software(f, peers));
                } else {
                    remaining.add(f);
                }
            }
        } else {
            decided.add(new Counted(first));
            for (int i = 1; i < faults.size(); i++) {
                DeviceFault f = faults.get(i);
                // Not software means every same-code fault in the window is on the first fault's device.
                if (sameCodeInWindow[i]) {
                    decided.add(new Counted(f));
                } else {
                    remaining.add(f);
                }
            }
        }
        return remaining;
    }

    /** Evidence lists at most this many peers; a storm's full list would dwarf the verdict. */
    public static final int MAX_PEERS_LISTED = 16;

    static boolean sameDevice(DeviceFault a, DeviceFault b) {
        return a.clusterId().equals(b.clusterId())
                && a.nodeName().equals(b.nodeName())
                && a.deviceName().equals(b.deviceName());
    }
}
