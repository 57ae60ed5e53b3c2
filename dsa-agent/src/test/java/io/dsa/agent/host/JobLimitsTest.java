package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A job's limits: the request, capped by the host with a note; the JVM options; CPU sets. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class JobLimitsTest {
    private static HostConfig host(long maxHeap, int maxCpus) {
        return HostConfig.builder().secret(new byte[32]).workDir(Path.of("unused")).maxJobHeapBytes(maxHeap).maxJobCpus(maxCpus)
                .build();
    }

    @Test
    void aRequestWithinTheCapsIsKeptAndBecomesJvmOptions() {
        JobLimits l = JobLimits.resolve(512L << 20, 2, host(1L << 30, 4));
        assertEquals(new JobLimits(512L << 20, 2, List.of()), l);
        assertEquals(List.of("-Xmx524288k", "-XX:ActiveProcessorCount=2", "-XX:+ExitOnOutOfMemoryError"), l.jvmOptions());
        assertEquals("heap 512 MiB", l.describeHeap());
    }

    @Test
    void aRequestOverTheCapsIsCappedWithANote() {
        JobLimits l = JobLimits.resolve(2L << 30, 8, host(1L << 30, 4));
        assertEquals(1L << 30, l.heapBytes());
        assertEquals(4, l.cpus());
        assertEquals(List.of("heap capped at 1 GiB (asked 2 GiB; the host's --max-job-heap)",
                "processors capped at 4 (asked 8; the host's --max-job-cpus)"), l.notes());
    }

    @Test
    void noRequestGetsTheCapsOrTheJvmsDefaultHeap() {
        assertEquals(new JobLimits(1L << 30, 4, List.of()), JobLimits.resolve(0, 0, host(1L << 30, 4)));
        JobLimits uncapped = JobLimits.resolve(0, 0, host(0, 3));
        assertEquals(0, uncapped.heapBytes());
        assertFalse(uncapped.jvmOptions().stream().anyMatch(o -> o.startsWith("-Xmx")), uncapped.jvmOptions().toString());
        assertTrue(uncapped.describeHeap().startsWith("heap: the JVM's default"), uncapped.describeHeap());
        assertTrue(uncapped.sameJvmAs(JobLimits.resolve(0, 3, host(0, 3))));
        assertFalse(uncapped.sameJvmAs(JobLimits.resolve(0, 2, host(0, 3))));
    }

    @Test
    void cpuListsParseAndTheCommandPrefixPinsOnlyWithASet() {
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), JobLimits.CpuSets.parse("0-3,8,10-11"));
        assertEquals(List.of(), JobLimits.commandPrefix(null));
        JobLimits.CpuSets sets = new JobLimits.CpuSets(List.of(0, 1, 2, 3));
        assertEquals("0,1", sets.next(2));
        assertEquals("2,3", sets.next(2));
        assertEquals("0", sets.next(1));
        assertEquals("1,2,3", sets.next(3));
        assertEquals(null, sets.next(4), "all of the host's processors: no pinning");
        if (JobLimits.CpuSets.TASKSET != null) {
            assertEquals(List.of(JobLimits.CpuSets.TASKSET.toString(), "-c", "1"), JobLimits.commandPrefix("1"));
        }
    }
}
