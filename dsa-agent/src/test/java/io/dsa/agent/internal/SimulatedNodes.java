package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.WireRoundTrip;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What the deterministic simulations of scoped behaviour racing plain coherence traffic share
 * ({@link DiffSimulation}, {@link AccumulateSimulation}, {@link ScopeSimulation}): {@link #NODES}
 * nodes, each with its {@link ArrayDirectory} (the real coherence engine and slots) and
 * {@link PendingCalls}, on an in-memory network with a FIFO queue per ordered pair of nodes;
 * every message goes through the real codec. A seeded {@link Random} picks each step: run one
 * task of a node's I/O thread, deliver the next message of one pair, or let one simulated worker
 * take a step. The arrays are int arrays of {@link #ELEMENTS} elements in partitions of
 * {@link #PARTITION}; an oracle holds the last value written to each element, and every plain
 * read is checked against it, so a stale copy is caught by the next plain read. A failure is an
 * {@link AssertionError} that starts with the seed and ends with the last steps of the trace.
 * Subclasses add their operations ({@link #stepOther}) and messages ({@link #deliverOther}).
 */
abstract class SimulatedNodes {
    static final int NODES = 3;
    static final int WORKERS = 2;
    static final int ELEMENTS = 24;
    static final int PARTITION = 4;
    static final int MAX_STEPS = 200_000;
    static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int TRACE = 40;

    final long seed;
    /** Every choice of the run: its workloads and the order of its steps. */
    final Random rnd;
    /** What a failure names to replay the run: its seed, or the jqwik schedule's choices. */
    private final String origin;
    final ArrayDirectoryTest.QueuedIoThread[] io = new ArrayDirectoryTest.QueuedIoThread[NODES];
    final ArrayDirectory[] arrays = new ArrayDirectory[NODES];
    final PendingCalls[] calls = new PendingCalls[NODES];
    final JobLifecycle[] jobs = new JobLifecycle[NODES];
    final PeerNetwork[] networks = new PeerNetwork[NODES];
    final Worker[][] workers = new Worker[NODES][WORKERS];
    private final List<ArrayDeque<Object>> queues = new ArrayList<>();
    private final Map<Integer, int[]> oracles = new HashMap<>();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private int nextValue = 1;
    private int step;

    SimulatedNodes(long seed) {
        this(seed, new Random(seed), "seed " + seed);
    }

    /** A run whose every choice is the next of {@code schedule}'s (a jqwik property's): no seed. */
    SimulatedNodes(Schedule schedule) {
        this(-1, schedule, "schedule of " + schedule.size() + " choices");
    }

    private SimulatedNodes(long seed, Random rnd, String origin) {
        this.seed = seed;
        this.rnd = rnd;
        this.origin = origin;
        for (int n = 0; n < NODES; n++) {
            for (int d = 0; d < NODES; d++) queues.add(new ArrayDeque<>());
            io[n] = new ArrayDirectoryTest.QueuedIoThread();
            networks[n] = new SimNetwork(n);
            jobs[n] = new JobLifecycle(n, networks[n], text -> {});
            calls[n] = new PendingCalls(networks[n], jobs[n]);
            arrays[n] = new ArrayDirectory(n, NODES, NODES, WORKERS, networks[n], io[n], Workers.waiting(io[n]));
            for (int w = 0; w < WORKERS; w++) workers[n][w] = new Worker(n, w);
        }
    }

    /** Defines int array {@code id} named {@code name} at every node, with an oracle of zeros. */
    final void define(int id, String name, Distribution distribution) {
        long[] params = Specs.toParams(ArraySpec.oneDimensional(name, ElementType.INT, ELEMENTS, PARTITION, distribution));
        for (ArrayDirectory a : arrays) a.define(id, name, params);
        oracles.put(id, new int[ELEMENTS]);
    }

    /** @return array {@code id}'s oracle: the last value written to each element */
    final int[] oracle(int id) { return oracles.get(id); }

    /** @return {@code {copies, owned}}: the read copies and the exclusive copies of array {@code id} at nodes other than their home */
    final int[] copiesElsewhere(int id) {
        int[] counts = new int[2];
        for (int n = 0; n < NODES; n++) {
            ArrayState a = arrays[n].array(id);
            for (int p = 0; p < a.slots.length; p++) {
                if (a.layout.homeOf(p) == n) continue;
                if (a.slots[p].granted() == Access.READ) counts[0]++;
                if (a.slots[p].granted() == Access.READ_WRITE) counts[1]++;
            }
        }
        return counts;
    }

    /** @return a value no write used before */
    final int freshValue() { return nextValue++; }

    // ---- phases ------------------------------------------------------------------------------------------

    /** Gives every worker {@code ops} plain reads and writes of random elements of random arrays of {@code among}, and runs them. */
    final void plainPhase(int ops, int... among) {
        for (Worker[] node : workers) for (Worker w : node) for (int k = 0; k < ops; k++) w.todo.add(plainOp(among[rnd.nextInt(among.length)]));
        runUntil(this::allWorkersIdle, "plain phase");
    }

    /** Reads every element of each array of {@code ids} at every node (worker 0), checked against the oracle. */
    final void readAll(int... ids) {
        for (Worker[] node : workers) for (int id : ids) for (int e = 0; e < ELEMENTS; e++) node[0].todo.add(new Op(id, e, OpKind.READ));
        runUntil(this::allWorkersIdle, "final reads");
    }

    /** Runs until no worker has anything to do, no I/O thread has a task and no message is on its way. */
    final void quiesce(String phase) {
        runUntil(() -> {
            if (!allWorkersIdle()) return false;
            for (ArrayDirectoryTest.QueuedIoThread t : io) if (!t.tasks.isEmpty()) return false;
            for (ArrayDeque<Object> q : queues) if (!q.isEmpty()) return false;
            return true;
        }, phase);
    }

    /** @return a plain read (two in three) or write of a random element of array {@code id} */
    Op plainOp(int id) {
        return new Op(id, rnd.nextInt(ELEMENTS), rnd.nextInt(3) == 0 ? OpKind.WRITE : OpKind.READ);
    }

    // ---- the scheduler -----------------------------------------------------------------------------------

    /** A phase's end, asked before each step (it may also take steps of its own, such as a node closing a scope). */
    interface Condition {
        boolean holds();
    }

    /** Takes seeded random steps until {@code done} holds. */
    final void runUntil(Condition done, String phase) {
        int start = step;
        while (!done.holds()) {
            if (step - start > MAX_STEPS) fail(phase + " did not end within " + MAX_STEPS + " steps");
            List<Runnable> choices = new ArrayList<>();
            for (int n = 0; n < NODES; n++) {
                int node = n;
                if (!io[n].tasks.isEmpty()) choices.add(() -> io[node].tasks.remove(0).run());
                for (int d = 0; d < NODES; d++) {
                    int dst = d;
                    if (!queues.get(n * NODES + d).isEmpty()) choices.add(() -> deliver(node, dst));
                }
                for (Worker w : workers[n]) if (!w.todo.isEmpty()) choices.add(w::step);
            }
            if (choices.isEmpty()) {
                if (done.holds()) return;
                fail(phase + " stalled: nothing to run, no message on its way, and the phase has not ended");
            }
            step++;
            choices.get(rnd.nextInt(choices.size())).run();
        }
    }

    private void deliver(int src, int dst) {
        Object m = next(queues.get(src * NODES + dst));
        trace(src + "->" + dst + " " + m);
        if (m instanceof CoherenceMessage c) arrays[dst].onCoherence(c);
        else if (!deliverOther(src, dst, m)) throw new AssertionError("unexpected message " + m);
    }

    /** @return the message of a pair's queue to deliver now, taken from it: its oldest (each pair is FIFO, as TCP is) */
    Object next(ArrayDeque<Object> queue) { return queue.poll(); }

    /** @return whether message {@code m} from {@code src} to {@code dst} was one of the subclass's, now handled */
    boolean deliverOther(int src, int dst, Object m) { return false; }

    final boolean allWorkersIdle() {
        for (int n = 0; n < NODES; n++) if (!workersIdle(n)) return false;
        return true;
    }

    final boolean workersIdle(int n) {
        for (Worker w : workers[n]) if (!w.todo.isEmpty()) return false;
        return true;
    }

    // ---- workers -----------------------------------------------------------------------------------------

    enum OpKind { READ, WRITE, BUFFER_WRITE, READ_INSIDE, ACCUMULATE, WRITE_LOCAL }

    record Op(int array, int element, OpKind kind) {}

    /**
     * A step of operation {@code op} of worker {@code w} that is not a plain read or write.
     *
     * @return whether the operation is done (else the worker takes it again at its next step)
     */
    boolean stepOther(Worker w, Op op) { throw new AssertionError("no " + op.kind() + " in this simulation"); }

    /** One simulated worker thread: a list of operations, the first under way until it completes. */
    final class Worker {
        final int node;
        final int index;
        final ArrayDeque<Op> todo = new ArrayDeque<>();
        /** The value the operation under way writes, 0 until it picks one. */
        int value;
        /** What the operation under way waits for (a subclass's), or null. */
        Object pending;

        Worker(int node, int index) {
            this.node = node;
            this.index = index;
        }

        String who() { return "n" + node + "w" + index + " "; }

        void step() {
            Op op = todo.peek();
            boolean done = op.kind() == OpKind.READ || op.kind() == OpKind.WRITE ? plain(op) : stepOther(this, op);
            if (!done) return;
            todo.poll();
            value = 0;
            pending = null;
        }

        private boolean plain(Op op) {
            ArrayState a = arrays[node].array(op.array());
            int p = op.element() / PARTITION;
            Slot s = a.slots[p];
            boolean write = op.kind() == OpKind.WRITE;
            Access needed = write ? Access.READ_WRITE : Access.READ;
            if (!Slot.accessOf(s.stamp).allows(needed)) {
                arrays[node].post(a, p, needed);
                return false;
            }
            int[] oracle = oracle(op.array());
            int off = op.element() % PARTITION * 4;
            String name = a.spec.name() + "[" + op.element() + "]";
            if (write) {
                if (value == 0) value = freshValue();
                INTS.set(s.data, off, value);
                oracle[op.element()] = value;
                trace(who() + "writes " + name + " = " + value);
            } else {
                int got = (int) INTS.get(s.data, off);
                trace(who() + "reads " + name + " = " + got);
                if (got != oracle[op.element()]) {
                    fail("stale read at node " + node + ": " + name + " = " + got + ", the last write was " + oracle[op.element()]);
                }
            }
            return true;
        }
    }

    // ---- the network ---------------------------------------------------------------------------------------

    /** Node {@code self}'s side of the in-memory network: every send through the real codec into its pair queue. */
    private final class SimNetwork implements PeerNetwork {
        private final int self;

        SimNetwork(int self) { this.self = self; }

        @Override
        public void send(int node, Object message) {
            if (node == self) throw new AssertionError("node " + self + " sent to itself: " + message);
            queues.get(self * NODES + node).add(WireRoundTrip.copy(message));
        }

        @Override public void sendToAll(Object message) { throw new UnsupportedOperationException("not in this simulation"); }

        @Override public void executeOnIoThread(Runnable task) { io[self].execute(task); }

        @Override public boolean attach(int node, Connection connection) { return false; }

        @Override public Connection replace(int node, Connection connection) { return null; }

        @Override public boolean holds(int node, Connection connection) { return false; }

        @Override public boolean connected(int node) { return true; }

        @Override public void grow(int count) {}

        @Override public void close() {}
    }

    // ---- seeds ---------------------------------------------------------------------------------------------

    /** @return the seeds a test runs: {@code -Ddsa.test.seed=S} replays seed S alone, else 1 to {@code count} */
    static long[] seeds(int count) {
        Long one = Long.getLong("dsa.test.seed");
        if (one != null) return new long[] {one};
        long[] seeds = new long[count];
        for (int i = 0; i < count; i++) seeds[i] = i + 1;
        return seeds;
    }

    /**
     * @param run runs the simulation of one seed with a seeded bug
     * @return the message of the first seed of {@link #seeds} whose run fails, which starts with that seed
     * @throws AssertionError if no seed fails
     */
    static String firstFailure(int count, String bug, java.util.function.LongConsumer run) {
        long[] seeds = seeds(count);
        for (long seed : seeds) {
            try {
                run.accept(seed);
            } catch (AssertionError e) {
                System.out.println(bug + " found: " + e.getMessage());
                if (!e.getMessage().startsWith("seed " + seed + ": ")) throw new AssertionError("the failure does not name seed " + seed, e);
                return e.getMessage();
            }
        }
        throw new AssertionError(bug + " was not found in " + seeds.length + " seeds");
    }

    /**
     * The choices of a run as a list a jqwik property generates, and shrinks: each draw of the
     * run ({@link #nextInt(int)}, {@link #nextBoolean()}, {@link #nextDouble()}) takes the next number, so
     * choice {@code c} of {@code k} options picks option {@code c % k}. Once the list is used up
     * the draws go on from a {@link Random} seeded with the list's length, so every list is a
     * complete run and the steps stay fair (always the first option would let a worker that waits
     * spin while the message it waits for is never delivered). A failing list shrinks to a
     * shorter one with smaller numbers: a shorter chosen prefix of the run.
     */
    static final class Schedule extends Random {
        private final List<Integer> choices;
        private final Random rest;
        private int next;

        Schedule(List<Integer> choices) {
            super(0);
            this.choices = List.copyOf(choices);
            this.rest = new Random(choices.size());
        }

        int size() { return choices.size(); }

        /** @return how many draws the run took so far (from the list, then from the rest) */
        int drawn() { return next; }

        // the next choice, in [0, 2^16]
        private int draw() {
            int c = next < choices.size() ? choices.get(next) : rest.nextInt(1 << 16);
            next++;
            return c;
        }

        /** @return option {@code c % bound} for the next choice {@code c} */
        @Override
        public int nextInt(int bound) {
            if (bound <= 0) throw new IllegalArgumentException("bound " + bound + " is not positive");
            return draw() % bound;
        }

        @Override
        public boolean nextBoolean() { return draw() % 2 == 1; }

        /** @return the next choice as a fraction of 2^16, in [0, 1) */
        @Override
        public double nextDouble() { return (draw() & 0xFFFF) / 65536.0; }

        @Override
        protected int next(int bits) {
            if (choices == null) return 0; // Random's constructor sets the seed before the fields: it draws nothing
            throw new UnsupportedOperationException("a schedule draws only nextInt(bound), nextBoolean and nextDouble");
        }
    }

    // ---- failures -----------------------------------------------------------------------------------------

    final void trace(String event) {
        if (trace.size() == TRACE) trace.poll();
        trace.add(step + ": " + event);
    }

    final void fail(String what) {
        throw new AssertionError(origin + ": " + what + "\nlast steps:\n  " + String.join("\n  ", trace));
    }
}
