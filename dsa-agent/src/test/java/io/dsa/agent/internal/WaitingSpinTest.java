package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.agent.WaitStrategy;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How long each wait strategy spins before it parks, and that {@link WaitStrategy#ADAPTIVE} counts
 * the node threads of the whole machine when the launcher says how many there are: nodes started as
 * separate processes on one machine each saw only their own JVM's threads and spun on cores the
 * other nodes' threads needed (NPB CG class S on 2 nodes x 1 thread of a 2-core machine: 3.6 s
 * adaptive against 1.3 s parked).
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class WaitingSpinTest {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    @Test
    void parkNeverSpinsAndSpinNeverParks() {
        assertEquals(0, Waiting.spinNs(WaitStrategy.PARK, 0));
        assertEquals(0, Waiting.spinNs(WaitStrategy.PARK, 1));
        assertEquals(Long.MAX_VALUE, Waiting.spinNs(WaitStrategy.SPIN, 0));
        assertEquals(Long.MAX_VALUE, Waiting.spinNs(WaitStrategy.SPIN, 10 * CORES));
    }

    @Test
    void adaptiveSpinsLongOnlyWhileEveryRunnableThreadHasACore() {
        assertEquals(Waiting.SPARE_CORES_SPIN_NS, Waiting.spinNs(2, 2));
        assertEquals(Waiting.SPARE_CORES_SPIN_NS, Waiting.spinNs(1, 8));
        assertEquals(Waiting.OVERSUBSCRIBED_SPIN_NS, Waiting.spinNs(3, 2));
        assertEquals(Waiting.OVERSUBSCRIBED_SPIN_NS, Waiting.spinNs(16, 8));
    }

    @Test
    void adaptiveCountsTheMachinesThreadsTheLauncherNamed() {
        // more threads on the machine than it has cores: spin only briefly, whatever this JVM runs
        assertEquals(Waiting.OVERSUBSCRIBED_SPIN_NS, Waiting.spinNs(WaitStrategy.ADAPTIVE, CORES + 1));
        assertEquals(Waiting.OVERSUBSCRIBED_SPIN_NS, Waiting.spinNs(WaitStrategy.ADAPTIVE, 4 * CORES));
    }
}
