package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Only a spin without bound yields its core: a bounded spin that yielded lost its core for a
 * scheduler slice whenever another thread was runnable there (CG 2x1's barrier release read 350-440 us
 * late by the lane poller, docs/runtime.md "Spins do not yield"), and an endless spin that never
 * yielded kept the threads it waited for off the cores (an 8 KiB read miss of 8 ms under SPIN).
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SpinsTest {
    @Test
    void aBoundedSpinNeverYields() {
        for (long bound : new long[] {1, 1_000, 50_000, Long.MAX_VALUE - 1}) {
            for (long turn = 0; turn <= 10 * Spins.YIELD_EVERY; turn++) {
                assertFalse(Spins.yieldsAt(bound, turn), "a spin bounded by " + bound + " ns yielded at turn " + turn);
            }
        }
    }

    @Test
    void anEndlessSpinYieldsEveryFewTurns() {
        int yields = 0;
        for (long turn = 1; turn <= 10L * Spins.YIELD_EVERY; turn++) {
            if (Spins.yieldsAt(Long.MAX_VALUE, turn)) yields++;
        }
        assertEquals(10, yields);
        assertFalse(Spins.yieldsAt(Long.MAX_VALUE, Spins.YIELD_EVERY - 1));
    }
}
