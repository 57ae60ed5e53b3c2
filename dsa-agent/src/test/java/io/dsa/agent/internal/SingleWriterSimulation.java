package io.dsa.agent.internal;

import io.dsa.Distribution;
import io.dsa.coherence.Access;
import java.util.ArrayDeque;

/**
 * Plain reads and writes of two arrays on {@link SimulatedNodes}: every message delayed by a
 * seeded amount, yet in order on each ordered pair of nodes (the order TCP keeps), which is what
 * the scheduler's seeded choice of the next pair to deliver makes. Before every step it checks the
 * protocol's invariant over every node at once: for each partition, at most one node holds it
 * READ_WRITE, and then no other node holds it READ (single writer or many readers); every plain
 * read is checked against the last write, as in every simulation.
 */
final class SingleWriterSimulation extends SimulatedNodes {
    static final int ROUNDS = 6;
    static final int OPS = 5;
    /** Steps at which some partition was READ_WRITE at a node other than its home: the check had owners to look at. */
    long stepsWithRemoteOwner;

    /** Whether one message in eight is taken from the back of its pair's queue instead (a broken FIFO, which TCP never gives). */
    private final boolean reorder;

    SingleWriterSimulation(long seed, boolean reorder) {
        super(seed);
        this.reorder = reorder;
        define(0, "A", Distribution.BLOCK);
        define(1, "B", Distribution.BLOCK_CYCLIC);
    }

    @Override
    Object next(ArrayDeque<Object> queue) {
        if (reorder && queue.size() > 1 && rnd.nextInt(8) == 0) {
            trace("overtaken: " + queue.peek());
            return queue.pollLast();
        }
        return queue.poll();
    }

    /**
     * @throws AssertionError starting with the seed if a check fails, or an engine refuses a
     *         message ({@code refused ...}: an engine's own check found the broken order)
     */
    SingleWriterSimulation run() {
        try {
            rounds();
        } catch (IllegalStateException e) {
            fail("refused: " + e.getMessage());
        }
        return this;
    }

    private void rounds() {
        for (int round = 0; round < ROUNDS; round++) {
            for (Worker[] node : workers) for (Worker w : node) for (int k = 0; k < OPS; k++) w.todo.add(plainOp(rnd.nextInt(2)));
            runUntil(() -> {
                checkSingleWriter();
                return allWorkersIdle();
            }, "round " + round);
        }
        readAll(0, 1);
    }

    private void checkSingleWriter() {
        boolean remoteOwner = false;
        for (int id = 0; id < 2; id++) {
            int partitions = arrays[0].array(id).slots.length;
            for (int p = 0; p < partitions; p++) {
                int writer = -1;
                int reader = -1;
                for (int n = 0; n < NODES; n++) {
                    ArrayState a = arrays[n].array(id);
                    Access granted = a.slots[p].granted();
                    if (granted == Access.READ_WRITE) {
                        if (writer >= 0) fail("array " + id + " partition " + p + " is READ_WRITE at nodes " + writer + " and " + n + " at once");
                        writer = n;
                        if (a.layout.homeOf(p) != n) remoteOwner = true;
                    } else if (granted == Access.READ) {
                        reader = n;
                    }
                }
                if (writer >= 0 && reader >= 0) {
                    fail("array " + id + " partition " + p + " is READ_WRITE at node " + writer + " and READ at node " + reader + " at once");
                }
            }
        }
        if (remoteOwner) stepsWithRemoteOwner++;
    }
}
