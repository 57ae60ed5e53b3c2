package io.dsa.agent.internal;

import io.dsa.ArrayUse;
import io.dsa.DsaException;
import io.dsa.DsaScope;
import io.dsa.ReduceOp;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.coherence.Access;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;

/**
 * The scopes of this node's workers (issue 13, docs/consistency.md): per phase, how each named
 * array behaves. A scope opens with one collective round that checks every worker named the same
 * uses, then the first of the node's workers to arrive sets the node up while the others wait:
 * a read cache requests a read copy of every partition at once and caps the workers' access at
 * READ; owner computes takes ownership of the node's home partitions at once (in a global scope
 * only read access, leaving the other nodes' copies: {@link ComputedPushes}), copies them into
 * plain arrays and caps the workers' access at NONE; a release scope gives the array a
 * {@link ReleaseBuffer} and caps the workers' access at NONE. A cap only lowers what the workers
 * get of the engine's grant ({@link Slot#cap}), so an access the scope forbids misses, and the miss path
 * refuses it ({@link AbstractSharedArray#checkScope}) or, in a release scope, buffers the write
 * or reads the buffer and the node's copy; hits are unchanged. The last of the node's workers to
 * close the scope sends the release buffers' diffs to the homes and waits until all are written
 * ({@link Diffs}), copies the plain arrays back (in a global scope also into the other nodes'
 * copies, pushed and answered) and lifts the caps before it joins the closing
 * barrier, so no other node can see the array before it is back. A switch ({@link DsaScope#next}) is a close whose
 * barrier is the next scope's opening round; a read cache of a region fills the partitions of the
 * regions the node's workers name (each names its own before the round, so after it the first
 * worker sees them all). A group scope ({@link ScopeGroup}) is the same with its rounds a group
 * barrier of its nodes' workers; a global round is refused while one is open at the worker
 * ({@link WorkerScopes#checkGlobalRound}). Node 0's gate holds no
 * barrier release while a scope is open here ({@link #open()}), so a node moves only between scopes.
 * The directory operations of entry and exit are {@link ScopeDirectory}'s, which
 * {@code ScopeSimulationTest} drives racing plain coherence traffic. Thread-safe.
 */
final class Scopes {
    private final NodeRuntime rt;
    /**
     * The node's open scopes by name: a global scope's is the epoch at which every worker opens it
     * (a Long), a group scope's the group and how many scopes of the group the worker opened
     * before (a String); guarded by this.
     */
    private final Map<Object, NodeScope> bySequence = new HashMap<>();
    /** The groups this node's workers named, by their nodes; guarded by itself. */
    private final Map<String, ScopeGroup> groups = new HashMap<>();
    private volatile int open;
    /** The directory operations of entry and exit. */
    final ScopeDirectory directory;
    /** A known bug the pushed diffs can be made to commit (tests only), or null. */
    volatile PushedDiffs.Fault pushFault;
    /** Diffs pushed in switches at this node (arrays times switches), for tests and counters. */
    final LongAdder pushes = new LongAdder();
    /** Owner computes in update mode: its results pushed to the sharers when it closes. */
    final ComputedPushes computed;

    Scopes(NodeRuntime rt, ComputedPushes computed) {
        this.rt = rt;
        this.directory = new ScopeDirectory(rt.nodeId, rt.arrays);
        this.computed = computed;
    }

    /** @return how many scopes are open at this node (set up and not yet torn down) */
    int open() { return open; }

    /** One scope as this node sees it: set up by the first worker, torn down by the last. */
    private static final class NodeScope {
        final List<ArrayUse> uses;
        /** Per read-cache array, the partitions its fill brings in: the union of the node's workers' regions. */
        final Map<ArrayState, BitSet> fills = new HashMap<>();
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        /** Whether a worker took the setup; guarded by the {@link Scopes}. */
        boolean claimed;
        int closed;

        /** The arrays whose diffs the switch into this scope pushed in its round ({@link ScopeSwitch#pushed}); empty for most scopes. */
        final List<ArrayState> pushed;
        /** Whether a switch into this scope without pushed diffs set its caps before its round; guarded by the {@link Scopes}. */
        boolean earlyCaps;
        /** Whether owner computes runs in update mode here ({@link ComputedPushes}): a global scope. */
        final boolean update;

        NodeScope(List<ArrayUse> uses, List<ArrayState> pushed, boolean update) {
            this.uses = uses;
            this.pushed = pushed;
            this.update = update;
        }
    }

    /** Per worker: the scopes it opened and has not closed, innermost last. */
    static final class WorkerScopes {
        final Deque<ScopeImpl> stack = new ArrayDeque<>();
        /** How many of {@link #stack} are group scopes: a global round inside one is refused. */
        int inGroups;
        /** Per group (its name), how many scopes of it this worker opened: names the next one. */
        final Map<String, Long> groupOpens = new HashMap<>();

        /**
         * @throws IllegalStateException if a group scope is open at this worker: a global round
         *         in it would wait for workers the group does not synchronise, and would be a
         *         safe point for a move while the group's scope is open
         */
        void checkGlobalRound(String what) {
            if (inGroups > 0) {
                throw new IllegalStateException(what + " inside a group scope (" + stack.peekLast().node.uses + "): close the"
                        + " group scope first, or synchronise its workers with it");
            }
        }
    }

    /**
     * Opens a scope for worker {@code w} ({@link io.dsa.DsaWorker#scope}).
     *
     * @throws IllegalArgumentException for a use this worker cannot make (see the contract)
     * @throws DsaException if the workers named different scopes, or the job fails
     */
    DsaScope open(WorkerImpl w, WorkerScopes mine, ArrayUse[] given) {
        return open(w, mine, check(mine, given), null, null, null, List.of(), false);
    }

    /**
     * Opens a group scope for worker {@code w} ({@link io.dsa.DsaWorker#groupScope}).
     *
     * @throws IllegalArgumentException for a bad group or a use this worker cannot make
     */
    DsaScope openGroup(WorkerImpl w, WorkerScopes mine, int[] nodes, ArrayUse[] given) {
        ScopeGroup group;
        String key = Arrays.toString(nodes);
        synchronized (groups) {
            group = groups.get(key);
            if (group == null) {
                group = ScopeGroup.of(rt, nodes);
                groups.put(key, group);
            }
        }
        return open(w, mine, check(mine, given), null, null, group, List.of(), false);
    }

    /**
     * Opens a scope over the checked {@code uses} in one collective round that also all-reduces
     * {@code values} in place (when not null). The round carries values, so node 0's gate never
     * holds its release ({@link MigrationGate}): a scope switch ({@link ScopeImpl#next}), whose
     * previous scope is torn down before this round, is no safe point either. A group scope's
     * round ({@code group} not null) is its group barrier, which carries no values: its workers'
     * uses are not compared, and {@code values} is null.
     */
    private DsaScope open(WorkerImpl w, WorkerScopes mine, List<ArrayUse> uses, double[] values, ReduceOp op, ScopeGroup group,
            List<ArrayState> pushed, boolean lastToLeave) {
        // the epoch names a global scope: every worker opens it at the same epoch, and a node that moved resumes at the
        // epoch of its safe point (a count of the worker's own scopes would start again from 0 there); a group's
        // workers count their scopes of the group (no node moves while one is open: no global round passes in it)
        if (group == null) mine.checkGlobalRound("opening a global scope");   // before it names its regions
        long sequence = w.epoch();
        Object key = group == null ? (Object) sequence : group.name + "#" + mine.groupOpens.merge(group.name, 1L, Long::sum);
        NodeScope node;
        synchronized (this) {
            node = bySequence.computeIfAbsent(key, k -> new NodeScope(uses, pushed, ComputedPushes.applies(group == null)));
            // before the round: after it, every worker of the node has named its regions
            for (ArrayUse u : uses) {
                if (u.behaviour() == ArrayUse.Behaviour.READ_CACHE) {
                    BitSet parts = node.fills.computeIfAbsent(state(u.array()), k -> new BitSet());
                    for (int p : u.partitions()) parts.set(p);
                }
            }
            // a switch's last worker to leave: every worker of the node is out of the closing scope, so the next one's
            // caps can be set now, before the round (unless the round brings diffs to write first)
            if (lastToLeave && pushed.isEmpty() && !ScopeSwitch.ownerComputes(uses)) {
                ScopeDirectory.setCaps(ScopeSwitch.caps(uses));
                node.earlyCaps = true;
            }
        }
        if (group == null) {
            ScopeRounds.opening(w, sequence, uses, values, op);
        } else {
            group.round(rt);
        }
        boolean first;
        synchronized (this) {
            first = !node.claimed;
            node.claimed = true;
        }
        if (first) {
            try {
                setUp(node);
                node.ready.complete(null);
            } catch (RuntimeException e) {
                node.ready.completeExceptionally(e);
                throw e;
            }
        } else {
            await(node.ready, uses);
        }
        ScopeImpl scope = new ScopeImpl(w, mine, key, node, group);
        mine.stack.addLast(scope);
        if (group != null) mine.inGroups++;
        return scope;
    }

    /** @return the uses, checked: arrays of this runtime, each once, none in an enclosing scope of this worker */
    private List<ArrayUse> check(WorkerScopes mine, ArrayUse[] given) {
        if (given == null) throw new NullPointerException("uses");
        List<ArrayUse> uses = new ArrayList<>();
        for (ArrayUse u : given) {
            if (u == null) throw new NullPointerException("a use of scope " + Arrays.toString(given) + " is null");
            if (!(u.array() instanceof AbstractSharedArray a) || a.rt != rt) {
                throw new IllegalArgumentException(u + ": the array is not a shared array of this VM");
            }
            for (ArrayUse other : uses) {
                if (other.array() == u.array()) {
                    throw new IllegalArgumentException("array '" + u.array().name() + "' appears twice in one scope: " + other + " and " + u);
                }
            }
            for (ScopeImpl outer : mine.stack) {
                for (ArrayUse o : outer.node.uses) {
                    if (o.array() == u.array()) {
                        throw new IllegalArgumentException("array '" + u.array().name() + "' is " + o + " in an enclosing scope; "
                                + "a nested scope cannot make it " + u + " (close the enclosing scope first)");
                    }
                }
            }
            uses.add(u);
        }
        return List.copyOf(uses);
    }

    private static ArrayState state(SharedArray a) { return ((AbstractSharedArray) a).state; }

    // Runs on the first worker of the node to open the scope; the node's other workers wait for it.
    private void setUp(NodeScope node) {
        List<ArrayUse> uses = node.uses;
        synchronized (this) {
            open++;
        }
        if (!node.pushed.isEmpty()) {
            // the switch's round carried every node's diffs of these arrays: written into the copies here (and into the
            // copies that arrive while the read cache is open) before the read cache asks for what is missing
            var byArray = PushedDiffs.decode(rt.barriers.releasedPayloads(), rt.arrays::array);
            for (ArrayState a : node.pushed) directory.writePushed(a, byArray.getOrDefault(a.id, Map.of()), pushFault);
            pushes.add(node.pushed.size());
        }
        for (ArrayUse u : uses) {
            ArrayState a = state(u.array());
            a.scopeUse = u.behaviour();
            if (u.behaviour() == ArrayUse.Behaviour.RELEASE) a.openRelease();
            if (u.behaviour() == ArrayUse.Behaviour.ACCUMULATE) a.openAccumulate(u.op());
        }
        // the caps, set here without the I/O thread (Slot#cap) after the pushed diffs: a read cache at READ (its copies
        // are asked for below; one that is lost meanwhile, to a write request sent before the scope, is asked for again
        // by the read that misses it); a release scope at NONE, so every access misses and the miss path buffers the
        // writes; an accumulate scope at NONE too, so a read or write misses and the miss path refuses it
        boolean early;
        synchronized (this) {
            early = node.earlyCaps;
        }
        if (!early) ScopeDirectory.setCaps(ScopeSwitch.caps(uses));
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        for (ArrayUse u : uses) if (u.behaviour() == ArrayUse.Behaviour.READ_CACHE) copies.addAll(directory.requestCopies(state(u.array()), node.fills.get(state(u.array()))));
        // owner computes' home partitions asked for now too, so their recalls travel while the fill does (other arrays:
        // independent transactions); withHomesOwned below waits for them and asks again for any lost meanwhile
        List<ArrayState> computedHere = states(uses, ArrayUse.Behaviour.OWNER_COMPUTES);
        Access homes = node.update ? Access.READ : Access.READ_WRITE;
        if (!copies.isEmpty()) for (ArrayState a : computedHere) directory.requestHomes(a, homes);
        // one wait for all of them: the worker is woken once, by the last copy, not once per copy still on its way
        if (!copies.isEmpty()) await(CompletableFuture.allOf(copies.toArray(new CompletableFuture<?>[0])), uses);
        // owner computes: the home partitions owned here (in update mode readable here: the sharers keep their copies),
        // copied into plain arrays, then capped at NONE
        for (ArrayState a : computedHere) {
            if (a.locals == null) a.locals = new Object[a.slots.length];
            IntConsumer copyIn = p -> a.locals[p] = ScopeDirectory.copyIn(a, p, a.locals[p]);
            if (node.update) {
                do {
                    for (CompletableFuture<Void> o : directory.requestHomes(a, Access.READ)) rt.job.await(o, "opening a scope over " + uses);
                } while (!directory.copyIfHomesGranted(a, Access.READ, copyIn));
            } else {
                withHomesOwned(a, "opening a scope over " + uses, copyIn);
            }
            directory.cap(List.of(a), Access.NONE);
        }
    }

    // Waits for f, part of opening a scope over uses; one done already costs nothing (no message built: once per round).
    private void await(CompletableFuture<Void> f, List<ArrayUse> uses) {
        if (f.isDone() && !f.isCompletedExceptionally()) return;
        rt.job.await(f, "opening a scope over " + uses);
    }

    private static List<ArrayState> states(List<ArrayUse> uses, ArrayUse.Behaviour behaviour) {
        List<ArrayState> states = new ArrayList<>();
        for (ArrayUse u : uses) if (u.behaviour() == behaviour) states.add(state(u.array()));
        return states;
    }

    // Runs on the last worker of the node to close the scope, before it joins the closing barrier: no
    // worker of this node touches the arrays now, and no other node's worker can until that barrier.
    private void tearDown(List<ArrayUse> uses, List<ArrayState> pushed, List<ArrayState> recapped, boolean update) {
        try {
            // release and accumulate scopes: every diff written (combined) at its home and answered before the closing
            // barrier; but the diffs of a release scope switched to a read cache of the same array ride that barrier
            List<ArrayState> buffered = states(uses, ArrayUse.Behaviour.RELEASE);
            buffered.removeAll(pushed);
            buffered.addAll(states(uses, ArrayUse.Behaviour.ACCUMULATE));
            if (!buffered.isEmpty()) rt.diffs.apply(buffered, "closing a scope over " + uses);
            if (!pushed.isEmpty()) rt.barriers.stashNodePayload(PushedDiffs.encode(pushed));
            // a read cache's pushed diffs: every node wrote them into its copies before its workers went on
            for (ArrayState a : states(uses, ArrayUse.Behaviour.READ_CACHE)) a.patch = null;
            // the caps lifted, but of the arrays the next scope of a switch caps again when it opens (recapped): no
            // worker of this node touches them until then
            List<ArrayState> all = new ArrayList<>();
            for (ArrayUse u : uses) all.add(state(u.array()));
            all.removeAll(recapped);
            directory.cap(all, Access.READ_WRITE);
            for (ArrayUse u : uses) {
                ArrayState a = state(u.array());
                // update mode: the results written here and pushed to the copies (ComputedPushes); otherwise, or where
                // a partition cannot be pushed, owned again: a read request sent before the scope may have taken a copy
                // of the old data meanwhile, and owning the partition invalidates it before the new data goes back
                if (u.behaviour() == ArrayUse.Behaviour.OWNER_COMPUTES && !(update && closePushing(a, uses))) {
                    withHomesOwned(a, "closing a scope over " + uses, p -> ScopeDirectory.copyOut(a, p, a.locals[p]));
                }
                a.scopeUse = null;
                a.closeRelease();
            }
        } finally {
            synchronized (this) {
                open--;
            }
        }
    }

    /**
     * Owner computes' closing in update mode ({@link ComputedPushes}): this node's requests for
     * {@code a} still under way installed, then its home partitions written and pushed to their
     * sharers, and every sharer's answer awaited.
     *
     * @return whether it was done so; if not, nothing was written, and the caller writes the partitions back owned
     */
    private boolean closePushing(ArrayState a, List<ArrayUse> uses) {
        String what = "closing a scope over " + uses;
        ComputedPushes.Closing closing;
        while (!(closing = rt.job.await(computed.closeHomes(a), what)).underWay().isEmpty()) {
            for (CompletableFuture<Void> f : closing.underWay()) rt.job.await(f, what);
        }
        if (closing.answers() == null) return false;
        for (CompletableFuture<Object> answer : closing.answers()) {
            DiffAppliedMessage done = (DiffAppliedMessage) rt.job.await(answer, what);
            if (!done.error().isEmpty()) throw new DsaException(done.error());
        }
        return true;
    }

    /**
     * Takes ownership of every home partition of {@code a} at this node (all requests at once) and
     * runs {@code copy} for each on the I/O thread while all are still owned; asks again if a
     * request that was on its way took one meanwhile.
     */
    private void withHomesOwned(ArrayState a, String what, java.util.function.IntConsumer copy) {
        do {
            for (CompletableFuture<Void> o : directory.requestHomes(a)) rt.job.await(o, what);
        } while (!directory.copyIfHomesOwned(a, copy));
    }

    /** One worker's handle on an open scope. */
    final class ScopeImpl implements DsaScope {
        private final WorkerImpl worker;
        private final WorkerScopes mine;
        private final Object key;
        /** The group whose workers the scope synchronises, or null for every worker of the VM. */
        private final ScopeGroup group;
        final NodeScope node;
        private final Thread owner = Thread.currentThread();
        private boolean closed;

        ScopeImpl(WorkerImpl worker, WorkerScopes mine, Object key, NodeScope node, ScopeGroup group) {
            this.worker = worker;
            this.mine = mine;
            this.key = key;
            this.group = group;
            this.node = node;
        }

        private Object plain(SharedArray array, int partition) {
            if (closed) throw new IllegalStateException("scope " + node.uses + " is closed");
            boolean named = false;
            for (ArrayUse u : node.uses) named |= u.array() == array && u.behaviour() == ArrayUse.Behaviour.OWNER_COMPUTES;
            if (!named) {
                throw new IllegalArgumentException("array '" + array.name() + "' is not owner-computes in scope " + node.uses);
            }
            ArrayState a = state(array);
            a.layout.checkPartition(partition);
            if (a.layout.homeOf(partition) != rt.nodeId) {
                List<Integer> here = new ArrayList<>();
                for (int p = 0; p < a.slots.length; p++) if (a.layout.homeOf(p) == rt.nodeId) here.add(p);
                throw new IllegalArgumentException("partition " + partition + " of array '" + array.name() + "' is homed at node "
                        + a.layout.homeOf(partition) + "; node " + rt.nodeId + " computes on its partitions " + here);
            }
            return a.locals[partition];
        }

        @Override
        public double[] local(SharedDoubleArray array, int partition) {
            return (double[]) plain(array, partition);
        }

        @Override
        public float[] local(SharedFloatArray array, int partition) {
            return (float[]) plain(array, partition);
        }

        @Override
        public int[] local(SharedIntArray array, int partition) {
            return (int[]) plain(array, partition);
        }

        @Override
        public long[] local(SharedLongArray array, int partition) {
            return (long[]) plain(array, partition);
        }

        @Override
        public void close() {
            if (closed) return;
            checkInnermost();
            leave(List.of(), List.of());
            round();
        }

        @Override
        public DsaScope next(ArrayUse... uses) {
            return next(null, null, uses);
        }

        @Override
        public DsaScope next(double[] values, ReduceOp op, ArrayUse... uses) {
            if (values != null) Objects.requireNonNull(op, "op").apply(0.0, 0.0); // a bitwise op fails before anyone waits
            if (values != null && group != null) {
                throw new IllegalArgumentException("scope " + node.uses + " of the group of " + group + " cannot carry a reduction:"
                        + " a group scope's round is a group barrier, which carries no values");
            }
            if (closed) throw new IllegalStateException("scope " + node.uses + " is closed");
            checkInnermost();
            // the next uses are checked against the enclosing scopes, not against this one, which they replace
            mine.stack.removeLast();
            List<ArrayUse> checked;
            try {
                checked = check(mine, uses);
            } catch (RuntimeException e) {
                mine.stack.addLast(this);
                throw e;
            }
            mine.stack.addLast(this);
            List<ArrayState> pushed = group == null && rt.barriers.carriesNodePayloads()
                    ? ScopeSwitch.pushed(node.uses, checked) : List.of();
            boolean last = leave(pushed, ScopeSwitch.recapped(node.uses, checked));
            return open(worker, mine, checked, values, op, group, pushed, last);
        }

        // The closing round: a global barrier, or the group's barrier.
        private void round() {
            if (group == null) {
                worker.barrier();
            } else {
                group.round(rt);
            }
        }

        private void checkInnermost() {
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("scope " + node.uses + " belongs to worker " + worker.threadId() + "'s thread");
            }
            if (mine.stack.peekLast() != this) {
                throw new IllegalStateException("scope " + node.uses + " closed before the scope nested in it, "
                        + mine.stack.peekLast().node.uses + ": close the inner one first");
            }
        }

        // Marks the scope closed for this worker; the node's last worker tears it down before the caller's round,
        // gives the round its diffs of the arrays in pushed and leaves the caps of those in recapped to the next scope.
        // @return whether this was the node's last worker to leave
        private boolean leave(List<ArrayState> pushed, List<ArrayState> recapped) {
            closed = true;
            mine.stack.removeLast();
            if (group != null) mine.inGroups--;
            boolean last;
            synchronized (Scopes.this) {
                last = ++node.closed == rt.threadsPerNode;
                if (last) bySequence.remove(key);
            }
            if (last) tearDown(node.uses, pushed, recapped, node.update);
            return last;
        }
    }
}
