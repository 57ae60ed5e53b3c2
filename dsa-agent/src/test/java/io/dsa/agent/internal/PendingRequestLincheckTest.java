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
 * <p>The seeded bug: a waiter that registers after it looks at the stamp, which misses a grant made
 * in between and parks forever; the model checker finds that hang.
 */
public class PendingRequestLincheckTest {
    private static final int ARRAY = 4;
    private static final long[] PARAMS = Specs.toParams(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK));
    private static final int INVOCATIONS = 400;

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

        Run(Function<Run, Waiting> waiting) {
            ioThread = Thread.currentThread(); // the definition runs here, before the threads start
            arrays = new ArrayDirectory(1, 2, 2, 1, this, this, waiting.apply(this));
            arrays.define(ARRAY, "A", PARAMS);
            a = arrays.array(ARRAY);
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

    /** The real wait: PARK, registering before the last look at the stamp, parked until woken. */
    static Waiting parkUntilWoken(Run run) {
        return new Waiting(WaitStrategy.PARK, new JobLifecycle(1, run, text -> {}), run, 0);
    }

    /** The mutant: looks at the stamp, then registers and parks; a grant in between is never seen. */
    static Waiting registeringAfterTheLastLook(Run run) {
        return new Waiting(WaitStrategy.PARK, new JobLifecycle(1, run, text -> {}), run, 0) {
            @Override
            void park(WaitPoint p, long observed) {
                if (p.version() != observed) return;
                p.register(WaitPoint.Waiter.current(p));
                java.util.concurrent.locks.LockSupport.park(p);
            }
        };
    }

    /** A reader and a writer miss on the partition while the I/O thread serves, answers and revokes. */
    static void readerAndWriter(Function<Run, Waiting> waiting) throws InterruptedException {
        Run run = new Run(waiting);
        Thread reader = new Thread(() -> run.worker(Access.READ));
        Thread writer = new Thread(() -> run.worker(Access.READ_WRITE));
        Thread io = new Thread(() -> run.io(2));
        io.start();
        reader.start();
        writer.start();
        reader.join();
        writer.join();
        io.join();
        if (run.requests > 3) throw new AssertionError(run.requests + " requests, expected at most 3: a read, a read again after the invalidation, a write");
    }

    @Test
    @Timeout(300)
    void everyWaitingWorkerIsWokenByItsGrantAndMissesCoalesce() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            try {
                readerAndWriter(PendingRequestLincheckTest::parkUntilWoken);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @Timeout(300)
    void aWaiterThatRegistersAfterItsLastLookIsCaughtHanging() {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class, () -> Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            try {
                readerAndWriter(PendingRequestLincheckTest::registeringAfterTheLastLook);
            } catch (InterruptedException x) {
                throw new AssertionError(x);
            }
        }));
        assertTrue(e.getMessage().contains("Concurrent test has hung"), e.getMessage());
    }
}
