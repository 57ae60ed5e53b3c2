package io.dsa.agent.internal;

import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.junit.jupiter.api.Assertions;

/**
 * The model checking shared by the tests of one worker step racing one I/O-thread step
 * ({@link PushedDiffsLincheckTest}, {@link SlotCopyLincheckTest}): two threads, one operation
 * each, every interleaving judged by the test class's {@code @Validate} check after both.
 */
final class WorkerIoRace {
    private WorkerIoRace() {}

    /** Checks every explored interleaving of {@code test}'s two operations. */
    static void check(Class<?> test) {
        options().check(test);
    }

    /** Asserts that the model checker finds the seeded bug of {@code mutant}, its check failing with {@code message}. */
    static void assertCaught(Class<?> mutant, String message) {
        LincheckAssertionError e = Assertions.assertThrows(LincheckAssertionError.class, () -> options().minimizeFailedScenario(false).check(mutant));
        Assertions.assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    private static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .threads(2)
                .actorsPerThread(1)
                .actorsBefore(0)
                .actorsAfter(0)
                .iterations(10)
                .invocationsPerIteration(200);
    }
}
