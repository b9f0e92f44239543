package io.falcon.bench.executor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * CPU time used so far by this JVM (broker, harness and executor together) and by the executor's own threads (its
 * lanes, step threads, timers and command loop, and its Kafka clients' threads, which are named after its group id).
 * The difference of two samples is what a phase cost; executor threads live through the phase, so none is missed.
 */
record CpuSample(long processNanos, long executorThreadNanos) {
    static CpuSample take(String executorGroupId) {
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long executor = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue; // ended since the ids were listed
            }
            String name = info.getThreadName();
            if (name.startsWith(ExecutorUnderTest.THREAD_PREFIX) || name.contains(executorGroupId)) {
                executor += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return new CpuSample(process, executor);
    }

    CpuSample since(CpuSample before) {
        return new CpuSample(processNanos - before.processNanos, executorThreadNanos - before.executorThreadNanos);
    }
}
