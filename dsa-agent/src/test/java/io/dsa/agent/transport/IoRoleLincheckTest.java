package io.dsa.agent.transport;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the driver's role of a lending event loop ({@link IoRole}): the
 * loop's own thread turns (takes the role if it is free, runs a turn, lends the role if a thread
 * waits) while waiting threads begin a wait, take the free role at a turn of it, run a turn, and
 * end the wait. A turn is a critical section on plain fields, as the loop's I/O and tasks are: in
 * every interleaving checked, no two threads are in it at once, and the thread in it is the one
 * {@link IoRole#drives} names (what {@code inEventLoop} answers Netty and the node's code).
 *
 * <p>Two seeded bugs are caught: a waiting thread that takes the free role by a read and a write
 * instead of a compare-and-set, and a loop thread that takes the role back without looking whether
 * a waiting thread has it.
 */
public class IoRoleLincheckTest {
    final IoRole role = newRole();
    /** Threads in a turn now: plain, as the loop's state is. */
    private int inTurn;
    /** The loop's thread: whichever thread runs the loop's operations (one, by their group). */
    private Thread loop;

    public IoRoleLincheckTest() {
        role.driver.set(null);   // started, and lent: the waiting threads may take it at once
    }

    /** @return the role under test (the mutants return a seeded bug) */
    IoRole newRole() { return new IoRole(); }

    /** The loop's thread: one turn of its loop, if it has (or takes) the role. @return whether every turn was exclusive */
    @Operation(nonParallelGroup = "loop")
    public boolean loopTurn() {
        Thread me = Thread.currentThread();
        loop = me;
        if (!role.loopTakes(me)) return true;
        boolean alone = turn(me);
        role.lend(me);
        return alone;
    }

    /** A waiting thread: begins, takes the role at up to two turns, ends. @return whether every turn was exclusive */
    @Operation
    public boolean waitAndDrive() {
        Thread me = Thread.currentThread();
        role.waiterBegins(loop);
        boolean alone = true;
        try {
            for (int t = 0; t < 2; t++) {
                if (role.waiterTakes(me)) alone &= turn(me);
            }
        } finally {
            role.waiterEnds(me);
        }
        return alone;
    }

    // The critical section: nobody else in it, and the caller is the driver throughout.
    private boolean turn(Thread me) {
        int before = inTurn;
        inTurn = before + 1;
        boolean alone = before == 0 && role.drives(me);
        alone &= inTurn == before + 1 && role.drives(me);
        inTurn = before;
        return alone;
    }

    /** The sequential specification: every turn is exclusive. */
    public static class Sequential {
        public boolean loopTurn() { return true; }

        public boolean waitAndDrive() { return true; }
    }

    /** The mutant: a waiting thread takes the free role by a read and then a write. */
    public static class TakeWithoutCas extends IoRoleLincheckTest {
        @Override
        IoRole newRole() {
            return new IoRole() {
                @Override
                boolean waiterTakes(Thread me) {
                    Thread d = driver.get();
                    if (d == me) return true;
                    if (d != null) return false;
                    driver.set(me);
                    return true;
                }
            };
        }
    }

    /** The mutant: the loop's thread takes the role back whoever has it. */
    public static class LoopTakesUnconditionally extends IoRoleLincheckTest {
        @Override
        IoRole newRole() {
            return new IoRole() {
                @Override
                boolean loopTakes(Thread loop) {
                    driver.set(loop);
                    return true;
                }
            };
        }
    }

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .sequentialSpecification(Sequential.class)
                .threads(3)
                .actorsPerThread(2)
                .iterations(20)
                .invocationsPerIteration(200);
    }

    @Test
    @Timeout(120)
    void atMostOneThreadDrivesTheLoopAtATime() {
        options().check(IoRoleLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aWaiterTakingTheRoleWithoutACompareAndSetIsCaught() {
        assertCaught(TakeWithoutCas.class);
    }

    @Test
    @Timeout(120)
    void aLoopThreadTakingTheRoleFromAWaiterIsCaught() {
        assertCaught(LoopTakesUnconditionally.class);
    }

    private static void assertCaught(Class<?> mutant) {
        org.jetbrains.lincheck.LincheckAssertionError e = Assertions.assertThrows(
                org.jetbrains.lincheck.LincheckAssertionError.class,
                () -> options().minimizeFailedScenario(false).check(mutant));
        Assertions.assertTrue(e.getMessage().contains("Invalid execution results"), e.getMessage());
    }
}
