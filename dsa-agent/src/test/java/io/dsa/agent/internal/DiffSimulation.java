package io.dsa.agent.internal;

import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.coherence.Access;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A deterministic simulation of release scopes racing plain coherence traffic, on the real
 * pieces ({@link SimulatedNodes}) and each node's {@link Diffs}. Two int arrays: R, used in
 * release scopes, and M, plain MSI all along.
 *
 * <p>Each round is a plain phase (workers read and write R and M through the protocol) and then a
 * release phase over R: every element gets at most one writer node, whose workers buffer writes
 * into it ({@link ReleaseBuffer}) while all workers keep reading and writing M and reading R
 * (their own writes, or the values from before the phase where nobody writes); when a node's
 * workers are done its diffs go to the homes ({@link Diffs#send}), and once they are all answered
 * its caps are lifted; the phase ends when every node is done (the closing barrier). A final
 * plain phase reads every element of R at every node.
 *
 * <p>Then an accumulate phase over R (SUM): workers of every node combine random amounts into
 * random elements of R in their node's buffer ({@link ReleaseBuffer#combine}), several nodes and
 * workers into the same element, while all keep reading and writing M; each node's combined
 * updates go to the homes as diffs with the op when its workers are done, and the homes add them.
 *
 * <p>Checked: when a release phase ends, every element written in it holds its last write at its home;
 * every plain read returns the last write (the oracle; after an accumulate phase, the
 * value before it plus every amount combined into the element), so a stale copy left behind by
 * a diff, a lost diff or a combined value written instead of added is caught by the reads after
 * the phase; every read inside a release phase returns the node's own buffered value or the value
 * from before; every diff is answered and the simulation never stalls.
 */
final class DiffSimulation extends SimulatedNodes {
    static final int R_ID = 1;
    static final int M_ID = 2;
    static final int ROUNDS = 3;
    static final int OPS = 12;

    private final Diffs[] diffs = new Diffs[NODES];
    // coverage
    int diffsSent;
    int copiesAtReleaseEntry;
    int ownedAtReleaseEntry;
    int readsInside;
    int accumulateDiffsSent;
    /** The last value a worker wrote into each element of R in the release phase under way, or {@code Integer.MIN_VALUE}. */
    private final int[] lastWritten = new int[ELEMENTS];
    /** The amounts combined into each element of R in the current accumulate phase, summed. */
    private final int[] added = new int[ELEMENTS];

    DiffSimulation(long seed, Diffs.Fault fault) {
        super(seed);
        setUp(fault);
    }

    /** A run whose every choice is {@code schedule}'s ({@code DiffPropertiesTest}). */
    DiffSimulation(Schedule schedule, Diffs.Fault fault) {
        super(schedule);
        setUp(fault);
    }

    private void setUp(Diffs.Fault fault) {
        define(R_ID, "R", Distribution.BLOCK_CYCLIC);
        define(M_ID, "M", Distribution.BLOCK);
        for (int n = 0; n < NODES; n++) {
            diffs[n] = new Diffs(n, arrays[n], networks[n], calls[n], jobs[n], io[n]);
            diffs[n].fault = fault;
        }
    }

    /** Runs every round and the final reads. @throws AssertionError naming the seed if a check fails */
    DiffSimulation run() {
        for (int round = 0; round < ROUNDS; round++) {
            plainPhase(OPS, R_ID, M_ID);
            releasePhase();
            accumulatePhase();
        }
        readAll(R_ID);
        return this;
    }

    private void releasePhase() {
        int[] writer = new int[ELEMENTS];
        for (int e = 0; e < ELEMENTS; e++) writer[e] = rnd.nextInt(NODES + 1) - 1; // -1: nobody writes it
        Arrays.fill(lastWritten, Integer.MIN_VALUE);
        // the scope opens at every node (after the opening collective): a buffer, and the caps
        int[] elsewhere = copiesElsewhere(R_ID);
        copiesAtReleaseEntry += elsewhere[0];
        ownedAtReleaseEntry += elsewhere[1];
        for (int n = 0; n < NODES; n++) {
            ArrayState r = arrays[n].array(R_ID);
            r.scopeUse = ArrayUse.Behaviour.RELEASE;
            r.openRelease();
            for (Slot s : r.slots) s.cap(Access.NONE);
        }
        for (int n = 0; n < NODES; n++) {
            for (Worker w : workers[n]) {
                for (int k = 0; k < OPS; k++) {
                    int e = rnd.nextInt(ELEMENTS);
                    int kind = rnd.nextInt(3);
                    if (kind == 0 && writer[e] == n) w.todo.add(new Op(R_ID, e, OpKind.BUFFER_WRITE));
                    else if (kind == 1 && (writer[e] == n || writer[e] == -1)) w.todo.add(new Op(R_ID, e, OpKind.READ_INSIDE));
                    else w.todo.add(plainOp(M_ID));
                }
            }
        }
        closeEverywhere((n, r) -> diffsSent += r.release.diffs().size(), "release phase");
        // every element written ends with its writer node's last write, written at its home by the
        // time the phase ends (the closing barrier): the homes hold R (nothing but the diffs wrote it, and reads only shared it)
        for (int e = 0; e < ELEMENTS; e++) {
            if (lastWritten[e] == Integer.MIN_VALUE) continue;
            int p = e / PARTITION;
            int home = arrays[0].array(R_ID).layout.homeOf(p);
            byte[] data = arrays[home].array(R_ID).slots[p].data;
            int atHome = data == null ? 0 : (int) INTS.get(data, e % PARTITION * 4);
            if (atHome != lastWritten[e]) {
                fail("stale read at home node " + home + " when the release phase ended: R[" + e + "] = " + atHome
                        + ", the last write was " + lastWritten[e]);
            }
        }
        int[] oracleR = oracle(R_ID);
        for (int e = 0; e < ELEMENTS; e++) if (lastWritten[e] != Integer.MIN_VALUE) oracleR[e] = lastWritten[e];
    }

    private void accumulatePhase() {
        Arrays.fill(added, 0);
        for (int n = 0; n < NODES; n++) {
            ArrayState r = arrays[n].array(R_ID);
            r.scopeUse = ArrayUse.Behaviour.ACCUMULATE;
            r.openAccumulate(ReduceOp.SUM);
            for (Slot s : r.slots) s.cap(Access.NONE);
        }
        for (int n = 0; n < NODES; n++) {
            for (Worker w : workers[n]) {
                for (int k = 0; k < OPS; k++) {
                    w.todo.add(rnd.nextBoolean() ? new Op(R_ID, rnd.nextInt(ELEMENTS), OpKind.ACCUMULATE) : plainOp(M_ID));
                }
            }
        }
        closeEverywhere((n, r) -> accumulateDiffsSent += r.accumulating.diffs().size(), "accumulate phase");
        int[] oracleR = oracle(R_ID);
        for (int e = 0; e < ELEMENTS; e++) oracleR[e] += added[e];
    }

    /**
     * Runs until every node closed the open release or accumulate scope over R: once a node's
     * workers are idle (its last worker closes the scope), {@code closing} sees its buffer, its
     * diffs go to the homes all at once, and when all are answered its caps are lifted.
     */
    private void closeEverywhere(Closing closing, String phase) {
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
                    closing.closing(n, r);
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
        }, phase);
    }

    /** What the simulation notes of node {@code node}'s buffer of R just before its diffs go out. */
    private interface Closing {
        void closing(int node, ArrayState r);
    }

    @Override
    boolean deliverOther(int src, int dst, Object m) {
        if (m instanceof DiffMessage d) diffs[dst].onDiff(src, d);
        else if (m instanceof DiffAppliedMessage a) calls[dst].complete(a.requestId(), a);
        else return false;
        return true;
    }

    @Override
    boolean stepOther(Worker w, Op op) {
        ArrayState a = arrays[w.node].array(op.array());
        int p = op.element() / PARTITION;
        int off = op.element() % PARTITION * 4;
        if (op.kind() == OpKind.ACCUMULATE) {
            int amount = 1 + rnd.nextInt(9);
            a.accumulating.combine(p, off / 4, amount);
            added[op.element()] += amount;
            trace(w.who() + "adds " + amount + " to R[" + op.element() + "]");
            return true;
        }
        if (op.kind() == OpKind.BUFFER_WRITE) {
            if (w.value == 0) w.value = freshValue();
            ReleaseBuffer.Part part = a.release.part(p);
            INTS.set(part.values, off, w.value);
            lastWritten[op.element()] = w.value;
            part.mark(off / 4);
            trace(w.who() + "buffers R[" + op.element() + "] = " + w.value);
            return true;
        }
        ReleaseBuffer.Part part = a.release.written(p);
        Slot s = a.slots[p];
        int got;
        if (part != null && part.marked(off / 4)) {
            got = (int) INTS.get(part.values, off);
        } else if (Slot.grantReadable(s.stamp) && s.data != null) {
            got = (int) INTS.get(s.data, off);
        } else {
            arrays[w.node].post(a, p, Access.READ);
            return false;
        }
        readsInside++;
        // the node's own last write if it wrote the element (only its workers write it), else the value from before
        int expected = lastWritten[op.element()] != Integer.MIN_VALUE ? lastWritten[op.element()] : oracle(R_ID)[op.element()];
        trace(w.who() + "reads R[" + op.element() + "] = " + got + " inside");
        if (got != expected) fail("read inside the scope at node " + w.node + ": R[" + op.element() + "] = " + got + ", expected " + expected);
        return true;
    }
}
