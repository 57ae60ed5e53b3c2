package io.dsa.agent.internal;

import io.dsa.Distribution;
import io.dsa.coherence.Access;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A deterministic simulation of scope entry and exit racing plain coherence traffic, on the real
 * pieces ({@link SimulatedNodes}) and each node's {@link ScopeDirectory}, the directory
 * operations {@link Scopes} drives with its workers. Its collective rounds and barriers are not
 * simulated: a scope phase starts once the nodes are quiescent (no worker busy, no I/O task, no
 * message on its way), as after an opening collective that also let every request from before
 * the scope finish, and ends when every node has closed, as at the closing barrier. So what races
 * a node's entry and exit is the other nodes' entries and exits and their workers' plain traffic
 * on M inside the scope, not a request for the same array sent before the scope and still on its
 * way (which may take a read cache's copy back; {@link Scopes} lets the read that misses it ask
 * again). Three int arrays:
 * C, used in read caches, O, used in owner-computes scopes, and M, plain MSI all along.
 *
 * <p>Each round is a plain phase on all three arrays, a read-cache phase over C, another plain
 * phase, and an owner-computes phase over O. In a read-cache phase each node fills its cache
 * ({@link ScopeDirectory#requestCopies}, then {@link ScopeDirectory#cap} at READ once every copy
 * is here) while the nodes that opened already read and write M; then its workers read C and
 * read and write M; its last worker caps at READ_WRITE again. In an owner-computes phase each
 * node takes ownership of its home partitions of O ({@link ScopeDirectory#requestHomes}, then
 * {@link ScopeDirectory#copyIfHomesOwned} into plain arrays, again until it copies), caps at NONE;
 * its workers write elements of those plain arrays (the kernel) and read and write M; at close
 * it lifts the caps and copies the plain arrays back while owning the partitions again. In update
 * mode ({@link ComputedPushes}) a node only gets read access to its home partitions (the copies
 * elsewhere stay), and at close writes the changed ones back and pushes them to their sharers
 * ({@link ComputedPushes#closeHomes}), the pushes and their answers being messages of the
 * simulated network. A final plain phase reads every element of C and O at every node.
 *
 * <p>A node's read cache is of the whole of C or of a region (a random run of partitions, as the
 * union of its workers' regions would be): it fills only those, and its workers' reads of C
 * outside them are plain coherent reads.
 *
 * <p>Checked: once a read cache is open at a node, every partition of its region is readable
 * there and holds the values written before the scope, and every read inside the region hits
 * and returns them (a read outside it returns the last write, as every plain read); the
 * plain arrays of owner computes hold the values written before the scope; after owner computes
 * closes, every node reads the kernel's writes (the plain reads after the phase, checked against
 * the oracle); and the simulation never stalls.
 */
final class ScopeSimulation extends SimulatedNodes {
    static final int C_ID = 1;
    static final int O_ID = 2;
    static final int M_ID = 3;
    static final int ROUNDS = 3;
    static final int OPS = 10;

    private final ScopeDirectory[] directories = new ScopeDirectory[NODES];
    /** Owner computes in update mode ({@link ComputedPushes}): a node's pushes of its results; null entries without it. */
    private final ComputedPushes[] pushes = new ComputedPushes[NODES];
    /** The kernel's writes to O in the owner-computes phase under way, {@link Integer#MIN_VALUE} where none. */
    private final int[] kernel = new int[ELEMENTS];
    // coverage
    int copiesFilled;
    int readsInside;
    int homesRecalled;
    int kernelWrites;
    int regionFills;
    int readsOutside;
    int partitionsPushed;
    int pushesWritten;

    ScopeSimulation(long seed, ScopeDirectory.Fault fault) {
        super(seed);
        setUp(fault);
    }

    /** Owner computes in update mode ({@link ComputedPushes}), with {@code fault} (or none) at every node. */
    ScopeSimulation(long seed, ComputedPushes.Fault fault) {
        super(seed);
        setUp(null);
        for (int n = 0; n < NODES; n++) {
            pushes[n] = new ComputedPushes(n, arrays[n], networks[n], calls[n]);
            pushes[n].fault = fault;
        }
    }

    /** A run whose every choice is {@code schedule}'s ({@code DiffPropertiesTest}). */
    ScopeSimulation(Schedule schedule, ScopeDirectory.Fault fault) {
        super(schedule);
        setUp(fault);
    }

    private void setUp(ScopeDirectory.Fault fault) {
        define(C_ID, "C", Distribution.BLOCK_CYCLIC);
        define(O_ID, "O", Distribution.BLOCK_CYCLIC);
        define(M_ID, "M", Distribution.BLOCK);
        for (int n = 0; n < NODES; n++) {
            directories[n] = new ScopeDirectory(n, arrays[n]);
            directories[n].fault = fault;
        }
    }

    /** Runs every round and the final reads. @throws AssertionError naming the seed if a check fails */
    ScopeSimulation run() {
        for (int round = 0; round < ROUNDS; round++) {
            plainPhase(OPS, C_ID, O_ID, M_ID);
            readCachePhase();
            plainPhase(OPS, C_ID, O_ID, M_ID);
            ownerComputesPhase();
        }
        readAll(C_ID, O_ID);
        for (ComputedPushes c : pushes) {
            if (c == null) continue;
            partitionsPushed += (int) c.pushed.sum();
            pushesWritten += (int) c.applied.sum();
        }
        return this;
    }

    /** Where a node is in a scope phase. */
    private enum Stage { ENTERING, INSIDE, AWAITING_OWN, LEAVING, CLOSED }

    /** One node's way through a scope phase: the futures it waits for, then its workers' operations. */
    private final class NodeInScope {
        final int node;
        final ArrayState a;
        Stage stage = Stage.ENTERING;
        List<CompletableFuture<Void>> waiting;
        /** Owner computes' closing in update mode: its I/O task and the answers to its pushes. */
        CompletableFuture<ComputedPushes.Closing> closing;
        /** A read cache's partitions: its region's (all of them for the whole array). */
        final BitSet region = new BitSet();

        NodeInScope(int node, int id) {
            this.node = node;
            this.a = arrays[node].array(id);
        }

        boolean waited() {
            for (CompletableFuture<Void> f : waiting) if (!f.isDone()) return false;
            for (CompletableFuture<Void> f : waiting) f.join();
            return true;
        }
    }

    private void readCachePhase() {
        quiesce("the opening collective of a read cache");
        copiesFilled += copiesElsewhere(C_ID)[0];
        NodeInScope[] nodes = new NodeInScope[NODES];
        for (int n = 0; n < NODES; n++) {
            nodes[n] = new NodeInScope(n, C_ID);
            // the whole array, or a region: a run of partitions (the union of its workers' regions)
            int count = nodes[n].a.slots.length;
            int lo = rnd.nextBoolean() ? 0 : rnd.nextInt(count);
            int hi = lo == 0 && rnd.nextBoolean() ? count : lo + 1 + rnd.nextInt(count - lo);
            nodes[n].region.set(lo, hi);
            if (hi - lo < count) regionFills++;
            nodes[n].waiting = directories[n].requestCopies(nodes[n].a, nodes[n].region);
            trace("node " + n + " asks for its read cache's copies of partitions " + nodes[n].region);
        }
        runPhase(nodes, "read-cache phase", s -> {
            switch (s.stage) {
                case ENTERING -> {
                    if (!s.waited()) return;
                    directories[s.node].cap(List.of(s.a), Access.READ);
                    checkFilled(s);
                    for (Worker w : workers[s.node]) {
                        for (int k = 0; k < OPS; k++) w.todo.add(rnd.nextBoolean() ? readOfC(s) : plainOp(M_ID));
                    }
                    s.stage = Stage.INSIDE;
                    trace("node " + s.node + " opened its read cache");
                }
                case INSIDE -> {
                    if (!workersIdle(s.node)) return;
                    directories[s.node].cap(List.of(s.a), Access.READ_WRITE);
                    s.stage = Stage.CLOSED;
                    trace("node " + s.node + " closed its read cache");
                }
                default -> throw new AssertionError(s.stage);
            }
        });
    }

    // a read of C inside: a hit in the region, a plain coherent read (which may miss) outside it
    private Op readOfC(NodeInScope s) {
        int e = rnd.nextInt(ELEMENTS);
        if (s.region.get(e / PARTITION)) return new Op(C_ID, e, OpKind.READ_INSIDE);
        readsOutside++;
        return new Op(C_ID, e, OpKind.READ);
    }

    // once a read cache is open at a node, every partition of its region is readable there with the values written before
    private void checkFilled(NodeInScope s) {
        int[] oracle = oracle(C_ID);
        for (int p = s.region.nextSetBit(0); p >= 0; p = s.region.nextSetBit(p + 1)) {
            Slot slot = s.a.slots[p];
            if (!Slot.accessOf(slot.stamp).allows(Access.READ)) {
                fail("read cache open at node " + s.node + " but partition " + p + " of C is not readable there (" + slot.granted() + ")");
            }
            for (int e = p * PARTITION; e < (p + 1) * PARTITION; e++) {
                int got = (int) INTS.get(slot.data, e % PARTITION * 4);
                if (got != oracle[e]) fail("read cache open at node " + s.node + " with C[" + e + "] = " + got + ", the last write was " + oracle[e]);
            }
        }
    }

    private void ownerComputesPhase() {
        quiesce("the opening collective of owner computes");
        homesRecalled += copiesElsewhere(O_ID)[0] + copiesElsewhere(O_ID)[1];
        Arrays.fill(kernel, Integer.MIN_VALUE);
        NodeInScope[] nodes = new NodeInScope[NODES];
        for (int n = 0; n < NODES; n++) {
            nodes[n] = new NodeInScope(n, O_ID);
            if (nodes[n].a.locals == null) nodes[n].a.locals = new Object[nodes[n].a.slots.length];
            nodes[n].waiting = pushes[n] == null ? directories[n].requestHomes(nodes[n].a)
                    : directories[n].requestHomes(nodes[n].a, Access.READ);
            trace("node " + n + (pushes[n] == null ? " asks to own its home partitions of O" : " asks to read its home partitions of O"));
        }
        runPhase(nodes, "owner-computes phase", s -> {
            ArrayState a = s.a;
            ScopeDirectory directory = directories[s.node];
            switch (s.stage) {
                case ENTERING -> {
                    if (!s.waited()) return;
                    boolean copied = pushes[s.node] == null
                            ? directory.copyIfHomesOwned(a, p -> a.locals[p] = ScopeDirectory.copyIn(a, p, a.locals[p]))
                            : directory.copyIfHomesGranted(a, Access.READ, p -> a.locals[p] = ScopeDirectory.copyIn(a, p, a.locals[p]));
                    if (!copied) {
                        s.waiting = pushes[s.node] == null ? directory.requestHomes(a) : directory.requestHomes(a, Access.READ);
                        trace("node " + s.node + " lost a home partition of O meanwhile, asks again");
                        return;
                    }
                    directory.cap(List.of(a), Access.NONE);
                    checkCopiedIn(s);
                    for (Worker w : workers[s.node]) {
                        for (int k = 0; k < OPS; k++) {
                            int e = rnd.nextInt(ELEMENTS);
                            w.todo.add(rnd.nextBoolean() && a.layout.homeOf(e / PARTITION) == s.node ? new Op(O_ID, e, OpKind.WRITE_LOCAL) : plainOp(M_ID));
                        }
                    }
                    s.stage = Stage.INSIDE;
                    trace("node " + s.node + " opened owner computes");
                }
                case INSIDE -> {
                    if (!workersIdle(s.node)) return;
                    directory.cap(List.of(a), Access.READ_WRITE);
                    if (pushes[s.node] != null) {
                        s.closing = pushes[s.node].closeHomes(a);
                        s.waiting = List.of();
                    } else {
                        s.waiting = directory.requestHomes(a);
                    }
                    s.stage = Stage.LEAVING;
                    trace("node " + s.node + " closes owner computes");
                }
                case LEAVING -> {
                    if (!s.waited()) return;
                    if (s.closing != null) {
                        // update mode: the results written at the homes and pushed, once the node's own requests are in
                        if (!s.closing.isDone()) return;
                        ComputedPushes.Closing c = s.closing.join();
                        s.closing = null;
                        if (!c.underWay().isEmpty()) {   // its own requests of O still under way: asks again once they are in
                            s.waiting = c.underWay();
                            s.stage = Stage.AWAITING_OWN;
                            return;
                        }
                        if (c.answers() != null) {
                            s.stage = Stage.CLOSED;
                            trace("node " + s.node + " closed owner computes, its results pushed");
                            return;
                        }
                        s.waiting = directory.requestHomes(a);   // cannot push: written back owned
                        trace("node " + s.node + " cannot push its results of O, owns its home partitions again");
                        return;
                    }
                    if (!directory.copyIfHomesOwned(a, p -> ScopeDirectory.copyOut(a, p, a.locals[p]))) {
                        s.waiting = directory.requestHomes(a);
                        return;
                    }
                    s.stage = Stage.CLOSED;
                    trace("node " + s.node + " closed owner computes");
                }
                case AWAITING_OWN -> {
                    if (!s.waited()) return;
                    s.closing = pushes[s.node].closeHomes(a);
                    s.waiting = List.of();
                    s.stage = Stage.LEAVING;
                }
                default -> throw new AssertionError(s.stage);
            }
        });
        int[] oracle = oracle(O_ID);
        for (int e = 0; e < ELEMENTS; e++) if (kernel[e] != Integer.MIN_VALUE) oracle[e] = kernel[e];
    }

    // the plain arrays of owner computes hold the values written before the scope
    private void checkCopiedIn(NodeInScope s) {
        int[] oracle = oracle(O_ID);
        for (int p = 0; p < s.a.slots.length; p++) {
            if (s.a.layout.homeOf(p) != s.node) continue;
            int[] local = (int[]) s.a.locals[p];
            for (int i = 0; i < PARTITION; i++) {
                int e = p * PARTITION + i;
                if (local[i] != oracle[e]) fail("owner computes open at node " + s.node + " with O[" + e + "] = " + local[i] + ", the last write was " + oracle[e]);
            }
        }
    }

    private interface NodeStep {
        void take(NodeInScope s);
    }

    // each node takes its scope steps (as its first or last worker would) until every node has closed
    private void runPhase(NodeInScope[] nodes, String phase, NodeStep step) {
        runUntil(() -> {
            boolean closed = true;
            for (NodeInScope s : nodes) {
                if (s.stage != Stage.CLOSED) step.take(s);
                closed &= s.stage == Stage.CLOSED;
            }
            return closed;
        }, phase);
    }

    @Override
    boolean deliverOther(int src, int dst, Object m) {
        if (m instanceof io.dsa.agent.wire.PushMessage push && pushes[dst] != null) pushes[dst].onPush(src, push);
        else if (m instanceof io.dsa.agent.wire.DiffAppliedMessage a) calls[dst].complete(a.requestId(), a);
        else return false;
        return true;
    }

    @Override
    boolean stepOther(Worker w, Op op) {
        ArrayState a = arrays[w.node].array(op.array());
        int p = op.element() / PARTITION;
        int i = op.element() % PARTITION;
        if (op.kind() == OpKind.WRITE_LOCAL) {
            int value = freshValue();
            ((int[]) a.locals[p])[i] = value;
            kernel[op.element()] = value;
            kernelWrites++;
            trace(w.who() + "writes O[" + op.element() + "] = " + value + " in its plain array");
            return true;
        }
        Slot s = a.slots[p];
        if (!Slot.accessOf(s.stamp).allows(Access.READ)) fail("read of C[" + op.element() + "] missed inside the read cache at node " + w.node);
        int got = (int) INTS.get(s.data, i * 4);
        readsInside++;
        trace(w.who() + "reads C[" + op.element() + "] = " + got + " inside");
        if (got != oracle(C_ID)[op.element()]) {
            fail("read inside the read cache at node " + w.node + ": C[" + op.element() + "] = " + got + ", the last write was " + oracle(C_ID)[op.element()]);
        }
        return true;
    }
}
