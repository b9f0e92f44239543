package io.falcon.faults.core;

import io.falcon.events.fault.DeviceFault;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RFC's algorithm written as plainly as the RFC states it (firstItemIsSfwFault, deleteSameWithFirstFault,
 * isReachFrequency, dealFrequencyFault) with unbounded lists and no pruning: the oracle for the property test.
 */
final class RfcReferenceModel {
    record Isolation(String node, String device, String code, long time) {}

    /** One pass of the job loop: the first fault and the same-code faults within its window removed with it. */
    record Round(DeviceFault first, List<DeviceFault> others, boolean software) {}

    record Result(List<DeviceFault> software, List<Isolation> isolations, List<Round> rounds) {}

    static Result run(List<DeviceFault> faults, long jobWindowMs, int threshold, long windowMs) {
        Map<String, List<DeviceFault>> byJob = new LinkedHashMap<>();
        List<DeviceFault> counted = new ArrayList<>();
        List<DeviceFault> software = new ArrayList<>();
        List<Round> rounds = new ArrayList<>();
        for (DeviceFault f : faults) {
            if (f.jobId().isEmpty()) {
                counted.add(f);
            } else {
                byJob.computeIfAbsent(f.jobId().get(), j -> new ArrayList<>()).add(f);
            }
        }
        for (List<DeviceFault> jobFaults : byJob.values()) {
            List<DeviceFault> list = new ArrayList<>(jobFaults);
            list.sort(Comparator.comparingLong(DeviceFault::receiveTimeMs));
            while (!list.isEmpty()) {
                DeviceFault f0 = list.get(0);
                boolean soft = false;
                for (int i = 1; i < list.size(); i++) {
                    DeviceFault f = list.get(i);
                    if (f.faultCode().equals(f0.faultCode())
                            && f.receiveTimeMs() <= f0.receiveTimeMs() + jobWindowMs
                            && (!f.nodeName().equals(f0.nodeName())
                                    || !f.deviceName().equals(f0.deviceName()))) {
                        soft = true;
                    }
                }
                if (soft) {
                    software.add(f0);
                } else {
                    counted.add(f0);
                }
                List<DeviceFault> after = new ArrayList<>();
                List<DeviceFault> removed = new ArrayList<>();
                for (int i = 1; i < list.size(); i++) {
                    DeviceFault f = list.get(i);
                    if (f.faultCode().equals(f0.faultCode()) && f.receiveTimeMs() <= f0.receiveTimeMs() + jobWindowMs) {
                        if (soft) {
                            software.add(f);
                            removed.add(f);
                            continue;
                        }
                        if (f.nodeName().equals(f0.nodeName()) && f.deviceName().equals(f0.deviceName())) {
                            counted.add(f);
                            removed.add(f);
                            continue;
                        }
                    }
                    after.add(f);
                }
                rounds.add(new Round(f0, removed, soft));
                list = after;
            }
        }
        counted.sort(Comparator.comparingLong(DeviceFault::receiveTimeMs));
        Map<String, List<Long>> counters = new HashMap<>();
        List<Isolation> isolations = new ArrayList<>();
        for (DeviceFault f : counted) {
            String key = f.nodeName() + "/" + f.deviceName() + "/" + f.faultCode();
            List<Long> times = counters.computeIfAbsent(key, k -> new ArrayList<>());
            times.add(f.receiveTimeMs());
            Collections.sort(times);
            if (isReachFrequency(times, threshold, windowMs)) {
                isolations.add(new Isolation(f.nodeName(), f.deviceName(), f.faultCode(), f.receiveTimeMs()));
                times.clear();
            }
        }
        return new Result(software, isolations, rounds);
    }

    static boolean isReachFrequency(List<Long> times, int threshold, long windowMs) {
        if (times.size() < threshold) {
            return false;
        }
        if (threshold == 1) {
            return true;
        }
        List<Long> recent = times.subList(times.size() - threshold, times.size());
        return recent.get(threshold - 1) - recent.get(0) < windowMs;
    }
}
