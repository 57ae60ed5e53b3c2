package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.CacheState;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.Connection;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the hand-off between worker threads and the node's I/O thread, which
 * owns the coherence engine: workers that miss on one partition post a request
 * ({@link ArrayDirectory#post}, coalesced per slot) and wait for the slot's stamp
 * ({@link ArrayDirectory#awaitAccess}, the real code, parking without a time bound so that a lost
 * wake-up hangs instead of being saved by the poll); the I/O thread runs the posted tasks, plays
 * the partition's home (answers GET_S and GET_M) and revokes the first shared copy once (an
 * invalidation), which sends the workers asking again. In every interleaving every worker must get
 * its access, and the node must send at most one request per grant it needed.
 *
 * <p>Lincheck lets a parked thread wake spuriously, and the worker's loop would then look at the
 * stamp again and carry on, so a plain park cannot show a lost wake-up: {@link WokenOnlyByWake}
 * makes a thread that really parked wait, when it finds the stamp changed, until the change's
 * {@link WaitPoint#wake()} has taken it out of the slot's list. Two scenarios: a reader and a
 * writer; a reader whose partition is already requested (a prefetch), whose answer can come at
 * any step of the reader.
 *
 * <p>The seeded bug: a waiter that looks at the stamp and then registers, which misses a change
 * made in between (the answer's install and the revocation; no later change wakes it) and waits
 * forever. The model checker explores the interleavings in the same order on every run and finds
 * that hang within the first 20; its interleaving shows the reader spinning in {@code block} with
 * the stamp changed since its last look, and the I/O thread idle.
 */
public class PendingRequestLincheckTest {
    private static final int ARRAY = 4;
    private static final long[] PARAMS = Specs.toParams(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK));
    /**
     * Interleavings explored per check of the real code with two workers: more than twice the 20
     * within which the model checker, which explores them in the same order on every run, finds the
     * seeded hang (in the one-reader scenario, which explores 25). Each takes
     * a quarter to half a second here (the I/O thread's idle loop yields, and the checker explores
     * around every yield); 100 and 50 took 25 and 22 s of a 15-minute CI run.
     */
    private static final int INVOCATIONS = 50;
    /** One worker: fewer interleavings than two. */
    private static final int ONE_READER_INVOCATIONS = 25;
    /** At most; the model checker stops at the first hang (found within the first 20 here). */
    private static final int MUTANT_INVOCATIONS = 300;
    /** Runs of one check, when Lincheck's wall clock runs out (see {@link #check}). */
    private static final int ATTEMPTS = 3;
    private static final String HUNG = "Concurrent test has hung";
    /** Lincheck's words for a hang it found by exploring: every unfinished thread waits or spins. */
    private static final String MODEL_CHECKED_HANG = "All unfinished threads are in";

    /** One run: node 1 of 2, whose partition 0 is homed at node 0, which its I/O thread plays as well. */
    static final class Run implements PeerNetwork, IoThread {
        final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /** Sent by the engine, which only the I/O thread runs. */
        final List<CoherenceMessage> sent = new ArrayList<>();
        final AtomicInteger done = new AtomicInteger();
        final ArrayDirectory arrays;
        final ArrayState a;
        volatile Thread ioThread;
        int requests;
        boolean revoked;

        /** @param requestInFlight a read request (a prefetch) is out before the threads start: its answer may come any time */
        Run(Function<Run, Waiting> waiting, boolean requestInFlight) {
            ioThread = Thread.currentThread(); // the definition runs here, before the threads start
            arrays = new ArrayDirectory(1, 2, 2, 1, this, this, waiting.apply(this));
            arrays.define(ARRAY, "A", PARAMS);
            a = arrays.array(ARRAY);
            if (requestInFlight) {
                arrays.post(a, 0, Access.READ);
                tasks.poll().run(); // sends the GET_S
            }
        }

        void worker(Access needed) {
            arrays.awaitAccess(a, 0, needed);
            done.incrementAndGet();
        }

        /** The I/O thread: runs the workers' tasks and answers as the home, until every worker has its access. */
        void io(int workers) {
            ioThread = Thread.currentThread();
            int answered = 0;
            while (done.get() < workers) {
                Runnable task = tasks.poll();
                if (task != null) {
                    task.run();
                } else if (answered < sent.size()) {
                    answer(sent.get(answered++));
                } else {
                    Thread.yield(); // idle: the model checker switches to a worker here (as the real loop blocks)
                }
            }
        }

        private void answer(CoherenceMessage m) {
            switch (m.op()) {
                case GET_S -> {
                    requests++;
                    arrays.onCoherence(fromHome(CoherenceOp.DATA_S, new byte[32]));
                    if (!revoked) {
                        revoked = true; // another node writes: the shared copy is invalidated at once
                        arrays.onCoherence(fromHome(CoherenceOp.INV, null));
                    }
                }
                case GET_M -> {
                    requests++;
                    boolean upgrade = a.slots[0].cacheState() == CacheState.SHARED;
                    arrays.onCoherence(fromHome(CoherenceOp.DATA_M, upgrade ? null : new byte[32]));
                }
                default -> { } // INV_ACK
            }
        }

        private static CoherenceMessage fromHome(CoherenceOp op, byte[] data) {
            return new CoherenceMessage(op, ARRAY, 0, 0, 1, op == CoherenceOp.INV ? 0 : 1, data);
        }

        @Override public void execute(Runnable task) { tasks.add(task); }

        @Override public boolean isCurrent() { return Thread.currentThread() == ioThread; }

        @Override public void send(int node, Object message) { sent.add((CoherenceMessage) message); }

        @Override public void sendToAll(Object message) { throw new UnsupportedOperationException(); }

        @Override public void executeOnIoThread(Runnable task) { execute(task); }

        @Override public boolean attach(int node, Connection connection) { throw new UnsupportedOperationException(); }

        @Override public Connection replace(int node, Connection connection) { throw new UnsupportedOperationException(); }

        @Override public boolean holds(int node, Connection connection) { return false; }

        @Override public boolean connected(int node) { return true; }

        @Override public void grow(int count) {}

        @Override public void close() {}
    }

    /**
     * PARK without a time bound, checking that every wake-up the parked thread is owed comes. The
     * model checker lets a parked thread wake spuriously, and the worker's loop would then look at
     * the stamp again and carry on, hiding a lost wake-up; so after {@code park} returns, a thread
     * that finds the version changed since its last look (made after it registered, so the changer
     * must wake it) waits until the changer's {@link WaitPoint#wake()} has taken its waiter out of
     * the point's list. A wake-up that never comes then hangs the run, and the model checker reports
     * it. Only a thread that really parked is owed a wake: one whose look after registering saw the
     * change already returns from {@link Waiting#park} without parking, and the change's wake may
     * well have found nobody registered.
     */
    static class WokenOnlyByWake extends Waiting {
        WokenOnlyByWake(Run run) {
            super(WaitStrategy.PARK, new JobLifecycle(1, run, text -> {}), run, 0);
        }

        @Override
        void block(WaitPoint p, long observed) {
            super.block(p, observed);
            // the waiter is the one park registered: still linked here, or unlinked by a wake
            WaitPoint.Waiter w = WaitPoint.Waiter.current(p);
            while (w.linked && w.at == p && p.version() != observed) Thread.yield();
        }
    }

    /** The real wait ({@link Waiting#park}: registers, looks at the stamp, parks unless it changed). */
    static Waiting parkUntilWoken(Run run) {
        return new WokenOnlyByWake(run);
    }

    /** The mutant: looks at the stamp, then registers and parks; a grant in between is never seen. */
    static Waiting registeringAfterTheLastLook(Run run) {
        return new WokenOnlyByWake(run) {
            @Override
            void park(WaitPoint p, long observed) {
                if (p.version() != observed) return;
                p.register(WaitPoint.Waiter.current(p));
                block(p, observed);
            }
        };
    }

    /** Workers that need {@code needs} miss on the partition while the I/O thread serves, answers and revokes. */
    static void missing(Function<Run, Waiting> waiting, boolean requestInFlight, Access... needs) {
        Run run = new Run(waiting, requestInFlight);
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> run.io(needs.length)));
        for (Access needed : needs) threads.add(new Thread(() -> run.worker(needed)));
        for (Thread t : threads) t.start();
        try {
            for (Thread t : threads) t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        if (run.requests > needs.length + 1) {
            throw new AssertionError(run.requests + " requests, expected at most " + (needs.length + 1)
                    + ": one per worker and one more after the invalidation");
        }
    }

    /**
     * Model-checks {@code scenario} for {@code invocations} interleavings. Lincheck also ends an
     * invocation that runs longer than its wall-clock limit (30 s, which
     * {@code runConcurrentTest} does not let us set) and reports that as a hang too, but without
     * the interleaving: on a loaded machine the first invocation of a run, which instruments every
     * class it touches, can take that long. The exploration is the same on every run, so such a run
     * is simply repeated (at most {@link #ATTEMPTS} times in all); a hang the model checker found
     * ("All unfinished threads are in livelock" or "deadlock", with the interleaving) and any
     * other failure are thrown at once.
     */
    static void check(int invocations, Runnable scenario) {
        for (int attempt = 1; ; attempt++) {
            long start = System.nanoTime();
            try {
                Lincheck.runConcurrentTest(invocations, scenario);
                return;
            } catch (LincheckAssertionError e) {
                if (!outOfTime(e) || attempt == ATTEMPTS) throw e;
                // said, so that a slow CI run shows where its time went
                System.out.printf("PendingRequestLincheckTest: attempt %d of %d ran out of Lincheck's wall clock after %.1f s;"
                        + " repeating%n", attempt, ATTEMPTS, (System.nanoTime() - start) / 1e9);
            }
        }
    }

    /** @return whether Lincheck reported a hang it did not find by model checking: its wall clock ran out */
    static boolean outOfTime(LincheckAssertionError e) {
        String m = String.valueOf(e.getMessage());
        return m.contains(HUNG) && !m.contains(MODEL_CHECKED_HANG);
    }

    /**
     * Runs the scenarios once outside the model checker: classes are loaded and initialized here
     * (a record's hashCode bootstraps {@code java.lang.runtime.ObjectMethods}, which cannot be
     * initialized inside a model-checked run), not in the first run Lincheck checks.
     */
    @BeforeAll
    static void loadTheClassesFirst() {
        CoherenceMessage m = new CoherenceMessage(CoherenceOp.GET_S, ARRAY, 0, 1, 0, 1, null);
        if (m.hashCode() != m.hashCode() || !m.equals(m)) throw new AssertionError();
        missing(PendingRequestLincheckTest::parkUntilWoken, false, Access.READ, Access.READ_WRITE);
        missing(PendingRequestLincheckTest::parkUntilWoken, true, Access.READ);
    }

    @Test
    @Timeout(600)
    void aReaderAndAWriterAreWokenByTheirGrantsAndTheirMissesCoalesce() {
        check(INVOCATIONS, () -> missing(PendingRequestLincheckTest::parkUntilWoken, false, Access.READ, Access.READ_WRITE));
    }

    @Test
    @Timeout(600)
    void aReaderWhosePartitionIsAlreadyRequestedIsWokenByTheAnswer() {
        check(ONE_READER_INVOCATIONS, () -> missing(PendingRequestLincheckTest::parkUntilWoken, true, Access.READ));
    }

    @Test
    @Timeout(600)
    void aWaiterThatRegistersAfterItsLastLookIsCaughtHanging() {
        // the scenario the real code passes above: the answer's install and the revocation can both fall between the
        // reader's last look and its registration, and nothing changes the stamp after them
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class, () -> check(MUTANT_INVOCATIONS,
                () -> missing(PendingRequestLincheckTest::registeringAfterTheLastLook, true, Access.READ)));
        // found by the model checker, with its interleaving: the reader spinning in block, the I/O thread idle
        assertTrue(e.getMessage().contains(HUNG) && e.getMessage().contains("All unfinished threads are in livelock"),
                e.getMessage());
    }
}
