package io.dsa.agent.internal;

import io.dsa.Distribution;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.coherence.Access;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A deterministic simulation of accumulates at the home racing plain coherence traffic, on the
 * real pieces ({@link SimulatedNodes}) and each node's {@link Accumulator}. Two int arrays: A,
 * accumulated into, and M, plain MSI all along.
 *
 * <p>Each round is a plain phase (workers read and write A and M through the protocol, which
 * leaves read copies and owners of A everywhere) and then an accumulate phase with one op, SUM or
 * XOR (exact on ints, and the order does not matter): some elements of A are targets, and workers
 * accumulate runs of 1 to 3 targets (a run may span two partitions, so two homes) with
 * {@link Accumulator#send}, each waiting for its answers, while they also read targets through the
 * protocol (taking copies the next accumulate must invalidate; the value read is not checked, it
 * races the updates), read and write A's other elements and read and write M. The phase ends when
 * every worker is done (the closing barrier); then every target holds the old value combined
 * with every value accumulated into it. A final plain phase reads every element of A at every node.
 *
 * <p>Checked: every plain read returns the last write or the combined value (the oracle), so an
 * update applied twice or lost, or a stale copy left behind by one, is caught by the reads after
 * the phase; every update is answered without error and the simulation never stalls.
 */
final class AccumulateSimulation extends SimulatedNodes {
    static final int A_ID = 1;
    static final int M_ID = 2;
    static final int ROUNDS = 3;
    static final int OPS = 12;

    private final Accumulator[] accumulators = new Accumulator[NODES];
    private boolean[] target;
    private ReduceOp op;
    private int[] combined;
    // coverage
    int partsSent;
    int copiesAtEntry;
    int ownedAtEntry;
    int racingReads;

    AccumulateSimulation(long seed, Accumulator.Fault fault) {
        super(seed);
        setUp(fault);
    }

    /** A run whose every choice is {@code schedule}'s ({@code DiffPropertiesTest}). */
    AccumulateSimulation(Schedule schedule, Accumulator.Fault fault) {
        super(schedule);
        setUp(fault);
    }

    private void setUp(Accumulator.Fault fault) {
        define(A_ID, "A", Distribution.BLOCK_CYCLIC);
        define(M_ID, "M", Distribution.BLOCK);
        for (int n = 0; n < NODES; n++) {
            accumulators[n] = new Accumulator(n, arrays[n], networks[n], calls[n], jobs[n], io[n]);
            accumulators[n].fault = fault;
        }
    }

    /** Runs every round and the final reads. @throws AssertionError naming the seed if a check fails */
    AccumulateSimulation run() {
        for (int round = 0; round < ROUNDS; round++) {
            plainPhase(OPS, A_ID, M_ID);
            accumulatePhase();
        }
        readAll(A_ID);
        return this;
    }

    private void accumulatePhase() {
        op = rnd.nextBoolean() ? ReduceOp.SUM : ReduceOp.XOR;
        target = new boolean[ELEMENTS];
        for (int e = 0; e < ELEMENTS; e++) target[e] = rnd.nextInt(3) == 0;
        combined = oracle(A_ID).clone();
        int[] elsewhere = copiesElsewhere(A_ID);
        copiesAtEntry += elsewhere[0];
        ownedAtEntry += elsewhere[1];
        for (int n = 0; n < NODES; n++) {
            for (Worker w : workers[n]) {
                for (int k = 0; k < OPS; k++) {
                    int e = rnd.nextInt(ELEMENTS);
                    int kind = rnd.nextInt(3);
                    if (kind == 0 && target[e]) w.todo.add(new Op(A_ID, e, OpKind.ACCUMULATE));
                    else if (kind == 1 && target[e]) w.todo.add(new Op(A_ID, e, OpKind.READ_INSIDE));
                    else if (kind == 1) w.todo.add(plainOp(A_ID));
                    else w.todo.add(plainOp(M_ID));
                }
            }
        }
        runUntil(this::allWorkersIdle, "accumulate phase");
        for (int e = 0; e < ELEMENTS; e++) if (target[e]) oracle(A_ID)[e] = combined[e];
        target = null;
    }

    // a plain op on A must keep off the targets, whose values are in flux: it moves to the next element that is not one
    @Override
    Op plainOp(int id) {
        Op plain = super.plainOp(id);
        if (id != A_ID || target == null || !target[plain.element()]) return plain;
        for (int e = plain.element(); e < plain.element() + ELEMENTS; e++) {
            if (!target[e % ELEMENTS]) return new Op(id, e % ELEMENTS, plain.kind());
        }
        return new Op(M_ID, plain.element(), plain.kind());
    }

    @Override
    boolean stepOther(Worker w, Op o) {
        ArrayState a = arrays[w.node].array(A_ID);
        int e = o.element();
        if (o.kind() == OpKind.READ_INSIDE) {
            // a read racing the updates: it takes a copy through the protocol, and its value is not checked
            if (!Slot.accessOf(a.slots[e / PARTITION].stamp).allows(Access.READ)) {
                arrays[w.node].post(a, e / PARTITION, Access.READ);
                return false;
            }
            racingReads++;
            trace(w.who() + "reads A[" + e + "] racing the updates");
            return true;
        }
        if (w.pending == null) {
            int length = 1;
            while (length < 3 && e + length < ELEMENTS && target[e + length] && rnd.nextBoolean()) length++;
            int[] values = new int[length];
            for (int i = 0; i < length; i++) {
                values[i] = freshValue() * 0x9E3779B1; // spread over all bits, so SUM and XOR both see every value
                combined[e + i] = (int) op.apply((long) combined[e + i], (long) values[i]);
            }
            List<CompletableFuture<Object>> replies = accumulators[w.node].send(a, 0, e, 1, length, values, op);
            partsSent += replies.size();
            w.pending = replies;
            trace(w.who() + op + "s " + java.util.Arrays.toString(values) + " into A[" + e + ".." + (e + length) + ")");
            return false;
        }
        @SuppressWarnings("unchecked")
        List<CompletableFuture<Object>> replies = (List<CompletableFuture<Object>>) w.pending;
        for (CompletableFuture<Object> r : replies) if (!r.isDone()) return false;
        for (CompletableFuture<Object> r : replies) {
            String error = ((AccumulatedMessage) r.join()).error();
            if (!error.isEmpty()) fail("an accumulate was refused: " + error);
        }
        return true;
    }

    @Override
    boolean deliverOther(int src, int dst, Object m) {
        if (m instanceof AccumulateMessage u) accumulators[dst].onAccumulate(src, u);
        else if (m instanceof AccumulatedMessage a) calls[dst].complete(a.requestId(), a);
        else return false;
        return true;
    }
}
