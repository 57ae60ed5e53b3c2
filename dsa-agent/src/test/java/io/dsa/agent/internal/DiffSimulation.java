package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.WireRoundTrip;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A deterministic simulation of release scopes racing plain coherence traffic, on the real
 * pieces: {@link #NODES} nodes, each with its {@link ArrayDirectory} (the real coherence engine
 * and slots) and {@link Diffs}, on an in-memory network with a FIFO queue per ordered pair of
 * nodes; every message goes through the real codec. A seeded {@link Random} picks each step: run
 * one task of a node's I/O thread, deliver the next message of one pair, or let one simulated
 * worker take a step. Two int arrays: R, used in release scopes, and M, plain MSI all along.
 *
 * <p>Each round is a plain phase (workers read and write R and M through the protocol) and then a
 * release phase over R: every element gets at most one writer node, whose workers buffer writes
 * into it ({@link ReleaseBuffer}) while all workers keep reading and writing M and reading R
 * (their own writes, or the values from before the phase where nobody writes); when a node's
 * workers are done its diffs go to the homes ({@link Diffs#send}), and once they are all answered
 * its caps are lifted; the phase ends when every node is done (the closing barrier). A final
 * plain phase reads every element of R at every node.
 *
 * <p>Checked: every plain read returns the last write (an oracle), so a stale copy left behind by
 * a diff or a lost diff is caught by the reads after the phase; every read inside the phase
 * returns the node's own buffered value or the value from before; every diff is answered and
 * the simulation never stalls. A failure is an {@link AssertionError} naming the seed, with the
 * last steps of the trace.
 */
final class DiffSimulation {
    static final int NODES = 3;
    static final int WORKERS = 2;
    static final int R_ID = 1;
    static final int M_ID = 2;
    static final int ELEMENTS = 24;
    static final int PARTITION = 4;
    static final int ROUNDS = 3;
    static final int OPS = 12;
    static final int MAX_STEPS = 200_000;
    private static final int TRACE = 40;
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    final long seed;
    private final Random rnd;
    private final ArrayDirectoryTest.QueuedIoThread[] io = new ArrayDirectoryTest.QueuedIoThread[NODES];
    private final ArrayDirectory[] arrays = new ArrayDirectory[NODES];
    private final Diffs[] diffs = new Diffs[NODES];
    private final PendingCalls[] calls = new PendingCalls[NODES];
    private final List<ArrayDeque<Object>> queues = new ArrayList<>();
    private final int[] oracleR = new int[ELEMENTS];
    private final int[] oracleM = new int[ELEMENTS];
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private final Worker[][] workers = new Worker[NODES][WORKERS];
    private int nextValue = 1;
    private int step;
    // coverage
    int diffsSent;
    int copiesAtReleaseEntry;
    int ownedAtReleaseEntry;
    int readsInside;

    DiffSimulation(long seed, Diffs.Fault fault) {
        this.seed = seed;
        this.rnd = new Random(seed);
        long[] paramsR = Specs.toParams(ArraySpec.oneDimensional("R", ElementType.INT, ELEMENTS, PARTITION, Distribution.BLOCK_CYCLIC));
        long[] paramsM = Specs.toParams(ArraySpec.oneDimensional("M", ElementType.INT, ELEMENTS, PARTITION, Distribution.BLOCK));
        for (int n = 0; n < NODES; n++) {
            for (int d = 0; d < NODES; d++) queues.add(new ArrayDeque<>());
            io[n] = new ArrayDirectoryTest.QueuedIoThread();
            SimNetwork net = new SimNetwork(n);
            JobLifecycle job = new JobLifecycle(n, net, text -> {});
            calls[n] = new PendingCalls(net, job);
            arrays[n] = new ArrayDirectory(n, NODES, NODES, WORKERS, net, io[n], Workers.waiting(io[n]));
            diffs[n] = new Diffs(n, arrays[n], net, calls[n], job, io[n]);
            diffs[n].fault = fault;
            arrays[n].define(R_ID, "R", paramsR);
            arrays[n].define(M_ID, "M", paramsM);
            for (int w = 0; w < WORKERS; w++) workers[n][w] = new Worker(n, w);
        }
    }

    /** Runs every round and the final reads. @throws AssertionError naming the seed if a check fails */
    DiffSimulation run() {
        for (int round = 0; round < ROUNDS; round++) {
            plainPhase(OPS, false);
            releasePhase();
        }
        plainPhase(0, true);
        return this;
    }

    // ---- phases ------------------------------------------------------------------------------------------

    private void plainPhase(int ops, boolean readAllOfR) {
        for (Worker[] node : workers) {
            for (Worker w : node) {
                w.todo.clear();
                for (int k = 0; k < ops; k++) w.todo.add(randomPlainOp(rnd.nextBoolean() ? R_ID : M_ID));
                if (readAllOfR && w.index == 0) for (int e = 0; e < ELEMENTS; e++) w.todo.add(new Op(R_ID, e, false, false));
            }
        }
        runUntil(() -> allWorkersIdle(), "plain phase");
    }

    private void releasePhase() {
        int[] writer = new int[ELEMENTS];
        for (int e = 0; e < ELEMENTS; e++) writer[e] = rnd.nextInt(NODES + 1) - 1; // -1: nobody writes it
        int[] buffered = new int[ELEMENTS];
        Arrays.fill(buffered, Integer.MIN_VALUE);
        // the scope opens at every node (after the opening collective): a buffer, and the caps
        for (int n = 0; n < NODES; n++) {
            ArrayState r = arrays[n].array(R_ID);
            for (int p = 0; p < r.slots.length; p++) {
                if (r.layout.homeOf(p) == n) continue;
                if (r.slots[p].granted() == Access.READ) copiesAtReleaseEntry++;
                if (r.slots[p].granted() == Access.READ_WRITE) ownedAtReleaseEntry++;
            }
            r.scopeUse = ArrayUse.Behaviour.RELEASE;
            r.openRelease();
            for (Slot s : r.slots) s.cap(Access.NONE);
        }
        for (int n = 0; n < NODES; n++) {
            for (Worker w : workers[n]) {
                w.todo.clear();
                for (int k = 0; k < OPS; k++) {
                    int e = rnd.nextInt(ELEMENTS);
                    int kind = rnd.nextInt(3);
                    if (kind == 0 && writer[e] == n) w.todo.add(new Op(R_ID, e, true, true));
                    else if (kind == 1 && (writer[e] == n || writer[e] == -1)) w.todo.add(new Op(R_ID, e, false, true));
                    else w.todo.add(randomPlainOp(M_ID));
                }
            }
        }
        List<List<CompletableFuture<Object>>> answers = new ArrayList<>();
        for (int n = 0; n < NODES; n++) answers.add(null);
        boolean[] done = new boolean[NODES];
        int[] left = {NODES};
        runUntil(() -> {
            for (int n = 0; n < NODES; n++) {
                if (done[n]) continue;
                ArrayState r = arrays[n].array(R_ID);
                if (answers.get(n) == null) {
                    if (!workersIdle(n)) continue;
                    // the node's last worker closes the scope: its diffs go to the homes, all at once
                    for (ReleaseBuffer.Diff d : r.release.diffs()) {
                        diffsSent++;
                        for (long run : d.runs()) {
                            for (int k = 0; k < DiffMessage.count(run); k++) {
                                int e = d.partition() * PARTITION + DiffMessage.first(run) + k;
                                buffered[e] = (int) INTS.get(d.values(), (valueIndex(d, run) + k) * 4);
                            }
                        }
                    }
                    answers.set(n, diffs[n].send(List.of(r)));
                    trace("node " + n + " sends its diffs");
                }
                boolean answered = true;
                for (CompletableFuture<Object> f : answers.get(n)) {
                    answered &= f.isDone();
                    if (f.isDone()) {
                        String error = ((DiffAppliedMessage) f.join()).error();
                        if (!error.isEmpty()) fail("a diff was refused: " + error);
                    }
                }
                if (!answered) continue;
                for (Slot s : r.slots) s.cap(Access.READ_WRITE);
                r.closeRelease();
                r.scopeUse = null;
                done[n] = true;
                left[0]--;
                trace("node " + n + " closed the scope");
            }
            return left[0] == 0;
        }, "release phase");
        for (int e = 0; e < ELEMENTS; e++) if (buffered[e] != Integer.MIN_VALUE) oracleR[e] = buffered[e];
    }

    private static int valueIndex(ReleaseBuffer.Diff d, long upTo) {
        int v = 0;
        for (long run : d.runs()) {
            if (run == upTo) return v;
            v += DiffMessage.count(run);
        }
        throw new AssertionError("run not in its diff");
    }

    private Op randomPlainOp(int array) {
        return new Op(array, rnd.nextInt(ELEMENTS), rnd.nextInt(3) == 0, false);
    }

    // ---- the scheduler -----------------------------------------------------------------------------------

    private interface Condition {
        boolean holds();
    }

    private void runUntil(Condition done, String phase) {
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
        Object m = queues.get(src * NODES + dst).poll();
        trace(src + "->" + dst + " " + m);
        if (m instanceof CoherenceMessage c) arrays[dst].onCoherence(c);
        else if (m instanceof DiffMessage d) diffs[dst].onDiff(src, d);
        else if (m instanceof DiffAppliedMessage a) calls[dst].complete(a.requestId(), a);
        else throw new AssertionError("unexpected message " + m);
    }

    private boolean allWorkersIdle() {
        for (int n = 0; n < NODES; n++) if (!workersIdle(n)) return false;
        return true;
    }

    private boolean workersIdle(int n) {
        for (Worker w : workers[n]) if (!w.todo.isEmpty()) return false;
        return true;
    }

    // ---- workers -----------------------------------------------------------------------------------------

    private record Op(int array, int element, boolean write, boolean inRelease) {}

    /** One simulated worker thread: a list of operations, the first under way until it completes. */
    private final class Worker {
        final int node;
        final int index;
        final ArrayDeque<Op> todo = new ArrayDeque<>();
        int value;

        Worker(int node, int index) {
            this.node = node;
            this.index = index;
        }

        void step() {
            Op op = todo.peek();
            ArrayState a = arrays[node].array(op.array());
            int p = op.element() / PARTITION;
            int off = op.element() % PARTITION * 4;
            Slot s = a.slots[p];
            String who = "n" + node + "w" + index + " ";
            if (op.inRelease() && op.write()) {
                if (value == 0) value = nextValue++;
                ReleaseBuffer.Part part = a.release.part(p);
                INTS.set(part.values, off, value);
                part.mark(off / 4);
                trace(who + "buffers R[" + op.element() + "] = " + value);
                finish();
                return;
            }
            if (op.inRelease()) {
                ReleaseBuffer.Part part = a.release.written(p);
                int got;
                if (part != null && part.marked(off / 4)) {
                    got = (int) INTS.get(part.values, off);
                } else if (Slot.grantReadable(s.stamp) && s.data != null) {
                    got = (int) INTS.get(s.data, off);
                } else {
                    arrays[node].post(a, p, Access.READ);
                    return;
                }
                readsInside++;
                int expected = part != null && part.marked(off / 4) ? (int) INTS.get(part.values, off) : oracleR[op.element()];
                trace(who + "reads R[" + op.element() + "] = " + got + " inside");
                if (got != expected) fail("read inside the scope at node " + node + ": R[" + op.element() + "] = " + got + ", expected " + expected);
                finish();
                return;
            }
            Access needed = op.write() ? Access.READ_WRITE : Access.READ;
            if (!Slot.accessOf(s.stamp).allows(needed)) {
                arrays[node].post(a, p, needed);
                return;
            }
            int[] oracle = op.array() == R_ID ? oracleR : oracleM;
            String name = (op.array() == R_ID ? "R[" : "M[") + op.element() + "]";
            if (op.write()) {
                if (value == 0) value = nextValue++;
                INTS.set(s.data, off, value);
                oracle[op.element()] = value;
                trace(who + "writes " + name + " = " + value);
            } else {
                int got = (int) INTS.get(s.data, off);
                trace(who + "reads " + name + " = " + got);
                if (got != oracle[op.element()]) {
                    fail("stale read at node " + node + ": " + name + " = " + got + ", the last write was " + oracle[op.element()]);
                }
            }
            finish();
        }

        private void finish() {
            todo.poll();
            value = 0;
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

    // ---- failures -----------------------------------------------------------------------------------------

    private void trace(String event) {
        if (trace.size() == TRACE) trace.poll();
        trace.add(step + ": " + event);
    }

    private void fail(String what) {
        throw new AssertionError("seed " + seed + ": " + what + "\nlast steps:\n  " + String.join("\n  ", trace));
    }
}
