package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The RFC's job-level fault manager: faults of one job, in receive-time order, are decided first fault first once
 * that fault's window (plus grace) has passed in event time. The first fault is a software fault when the same code
 * appears on a different device of the job within the window; then it and its same-code peers in the window are
 * not counted. Otherwise it and the same-device same-code faults in the window are counted (deleteSameWithFirstFault).
 * Everything else stays pending for the next round.
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

    public record Decision(List<Outcome> decided, List<DeviceFault> remaining) {
        public Decision {
            decided = List.copyOf(decided);
            remaining = List.copyOf(remaining);
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
        while (!rest.isEmpty() && isDue(rest.get(0).receiveTimeMs(), windowMs, graceMs, nowMs)) {
            rest = decideFirst(rest, windowMs, decided);
        }
        return new Decision(decided, rest);
    }

    /** Decides everything pending, as if the windows had all passed (end of a replay trace). */
    public static Decision decideAll(List<DeviceFault> pending, long windowMs) {
        return decideDue(pending, windowMs, 0, Long.MAX_VALUE - windowMs);
    }

    private static List<DeviceFault> decideFirst(List<DeviceFault> faults, long windowMs, List<Outcome> decided) {
        DeviceFault first = faults.get(0);
        boolean[] sameCodeInWindow = new boolean[faults.size()];
        boolean software = false;
        Set<String> group = new LinkedHashSet<>();
        group.add(first.deviceRef());
        for (int i = 1; i < faults.size(); i++) {
            DeviceFault f = faults.get(i);
            if (f.faultCode().equals(first.faultCode()) && f.receiveTimeMs() <= first.receiveTimeMs() + windowMs) {
                sameCodeInWindow[i] = true;
                group.add(f.deviceRef());
                software |= !sameDevice(f, first);
            }
        }
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
