package io.dsa.coherence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * N coherence engines on an in-memory router with a FIFO queue per ordered pair of nodes; which
 * pair delivers next is chosen by a seeded {@link Random}. Each node runs a few simulated workers
 * that read and write int elements of real byte[] copies, as the runtime's worker threads would:
 * {@code while (!engine.request(...)) wait}, then access the local copy if the store allows it.
 *
 * <p>Checked after every step: (a) per partition, at most one node may write, and then no other
 * node may read; (b) every read returns the last completed write of that element (an oracle keeps
 * it; a write completes when it is applied to a copy with {@link Access#READ_WRITE}); the engine's
 * view of access equals the store's; a node has at most one request per partition unanswered. At the
 * end, after draining, (c) every request completed.
 * A failure is an {@link AssertionError} naming the seed, with the last trace events.
 */
final class SimulatedCluster {
    static final int TRACE = 50;
    static final int[] ARRAY_IDS = {0, 5};

    final long seed;
    final Random rnd;
    final int nodes;
    final int arrays;
    final int partitions;
    final int elements;
    final int workersPerNode;
    final int[][] home;
    final CoherenceEngine[] engine;
    final RecordingPartitionStore[] store;
    /** FIFO per ordered pair of nodes, at index {@code src * nodes + dst} */
    final List<ArrayDeque<CoherenceMessage>> queues = new ArrayList<>();
    final Map<Long, Integer> oracle = new HashMap<>();
    /** (node, array, partition) with a GET in flight or queued at the home: at most one each (coalescing) */
    final java.util.Set<String> requestsInFlight = new java.util.HashSet<>();
    final Worker[][] workers;
    final ArrayDeque<String> trace = new ArrayDeque<>();
    int nextValue = 1;
    int opsIssued;
    int opsDone;
    int reads;
    int writes;
    long messages;
    /** coverage of the races: INV reaching a node whose upgrade is under way, GETs arriving while the home is busy */
    int invCrossedUpgrade;
    int requestQueuedWhileBusy;
    int homeWantWrite;
    int step;
    /** pushes made and delivered (coverage of the push property) */
    int pushes;
    int pushesDelivered;
    /** copies dropped unasked and PUT_S delivered (coverage of the drop property) */
    int drops;
    int dropsDelivered;
    /** overwrites granted without data (the store wrote the worker's bytes), and those that got the access another way */
    int overwritesGranted;
    int overwritesFellBack;
    /** owner-computes scopes exited ({@link Worker#startScope}) */
    int scopesExited;
    /** test-only bug: an owner-computes scope's exit copies back without taking its partition again */
    boolean exitWithoutOwnership;

    /**
     * An update a worker sent to a partition's home: a release scope's diff of one element, or an
     * accumulate (SUM) into it ({@link UpdateModel} explains the protocol, which this simulation
     * drives at random with more nodes and partitions).
     */
    record Update(Worker worker, int arrayId, int partition, int element, boolean accumulate, int value) {
        @Override
        public String toString() {
            return (accumulate ? "accumulate " : "diff ") + arrayId + ":" + partition + "[" + element + "]" + (accumulate ? " += " : " = ")
                    + value + " of " + worker;
        }
    }
    /** updates in flight to their homes, in no order */
    final List<Update> updatesInFlight = new ArrayList<>();
    /** per (array, partition), the updates its home received and has not written yet, in arrival order */
    final Map<Long, List<Update>> updatesWaiting = new java.util.LinkedHashMap<>();
    /** answers in flight back to the workers, in no order */
    final List<Update> updateAnswers = new ArrayList<>();
    int updatesWritten;
    /** test-only bug: the home writes an update once it may read the partition (before invalidating the copies) */
    boolean updateBeforeInvalidation;

    SimulatedCluster(long seed, int nodes, int arrays, int partitions, int elements, int workersPerNode) {
        this.seed = seed;
        this.rnd = new Random(seed);
        this.nodes = nodes;
        this.arrays = arrays;
        this.partitions = partitions;
        this.elements = elements;
        this.workersPerNode = workersPerNode;
        this.home = new int[arrays][partitions];
        for (int a = 0; a < arrays; a++) for (int p = 0; p < partitions; p++) home[a][p] = rnd.nextInt(nodes);
        HomeResolver homes = (arrayId, partition) -> home[arrayIndex(arrayId)][partition];
        engine = new CoherenceEngine[nodes];
        store = new RecordingPartitionStore[nodes];
        workers = new Worker[nodes][workersPerNode];
        for (int n = 0; n < nodes; n++) {
            store[n] = new RecordingPartitionStore(n, homes, elements * 4);
            store[n].recording = false;
            int src = n;
            engine[n] = new CoherenceEngine(n, nodes, homes, store[n], m -> route(src, m));
            for (int d = 0; d < nodes; d++) queues.add(new ArrayDeque<>());
            for (int w = 0; w < workersPerNode; w++) workers[n][w] = new Worker(n, w);
        }
    }

    /** One simulated worker thread: at most one operation under way. */
    final class Worker {
        final int node;
        final int id;
        boolean busy;
        int arrayId;
        int partition;
        int element;
        boolean write;
        /** a write of every element of the partition ({@link CoherenceEngine#requestOverwrite}) */
        boolean overwrite;
        /** an update sent to the partition's home ({@link #sendUpdate}), waiting for its answer */
        boolean update;
        /** what the store runs at an overwrite's grant, while registered there */
        Runnable overwriteWriter;
        /** 1: the op enters an owner-computes scope over its partition, 2: it exits the scope (0: neither) */
        int scopeStep;
        /** while the worker is inside an owner-computes scope: the array and partition (its node homes it); -1 outside */
        int scopeArray = -1;
        int scopePartition = -1;

        Worker(int node, int id) {
            this.node = node;
            this.id = id;
        }

        /** The worker, idle, starts an op: a read or write of an element, an overwrite, or an update sent to the home. */
        void start(int arrayId, int partition, int element, boolean write, boolean overwrite, boolean update) {
            busy = true;
            this.arrayId = arrayId;
            this.partition = partition;
            this.element = element;
            this.write = write;
            this.overwrite = overwrite;
            this.update = update;
            scopeStep = 0;
            opsIssued++;
        }

        /**
         * The worker, idle, enters ({@code step} 1) or exits (2) an owner-computes scope over a
         * partition its node homes: either takes the partition (READ_WRITE); the entry then copies
         * it into the worker's plain array, which must hold the last writes, and the exit copies a
         * new value of every element back (dsa-agent's {@code Scopes}; {@link ModelOp}'s {@code E} and {@code X}).
         */
        void startScope(int arrayId, int partition, int step) {
            start(arrayId, partition, 0, true, false, false);
            scopeStep = step;
        }

        Access needed() { return write ? Access.READ_WRITE : Access.READ; }

        @Override
        public String toString() {
            if (scopeStep > 0) return "n" + node + "w" + id + (scopeStep == 1 ? " enter" : " exit") + " owner computes " + arrayId + ":" + partition;
            if (overwrite) return "n" + node + "w" + id + " overwrite " + arrayId + ":" + partition;
            return "n" + node + "w" + id + " " + (write ? "write " : "read ") + arrayId + ":" + partition + "[" + element + "]";
        }
    }

    /** Runs {@code ops} operations with random interleaving, then drains and checks completion. */
    SimulatedCluster run(int ops) {
        try {
            while (opsIssued < ops || anyBusyWorker() || anyMessage()) {
                step++;
                if (step > ops * 400) throw new AssertionError("no progress after " + step + " steps");
                if (opsIssued >= ops && rnd.nextInt(4) == 0 || !anyMessage() || rnd.nextBoolean()) {
                    Worker w = workers[rnd.nextInt(nodes)][rnd.nextInt(workersPerNode)];
                    if (w.busy) tryComplete(w);
                    else if (opsIssued < ops) issue(w);
                } else {
                    deliverOne();
                }
                checkInvariants();
            }
            drainAndCheckCompletion();
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(failure(e.toString()), e);
        }
        return this;
    }

    /** Every request completed: no message in flight, no engine waiting, every worker idle. */
    void drainAndCheckCompletion() {
        deliverAll();
        if (!requestsInFlight.isEmpty()) throw new AssertionError("requests never answered: " + requestsInFlight);
        for (int n = 0; n < nodes; n++) {
            if (!engine[n].quiescent()) throw new AssertionError("node " + n + " has a request stuck after draining");
        }
        for (Worker[] ws : workers) for (Worker w : ws) {
            if (w.busy) throw new AssertionError(w + " never completed");
        }
    }

    void issue(Worker w) {
        int a = ARRAY_IDS[rnd.nextInt(arrays)];
        int p = rnd.nextInt(partitions);
        // half of the accesses hit "my" element: many nodes writing different elements of one partition
        int e = rnd.nextBoolean() ? (w.node * workersPerNode + w.id) % elements : rnd.nextInt(elements);
        w.start(a, p, e, rnd.nextInt(3) == 0, false, false);
        event("issue " + w);
        tryComplete(w);
    }

    /**
     * The worker's loop body: access the copy if the store allows it, else (re)request and wait. An
     * overwrite registers its writer with the store at its first miss (as a region write does with
     * its bytes) and asks with {@link CoherenceEngine#requestOverwrite}; if the access comes
     * another way, it takes the writer back and writes itself.
     */
    void tryComplete(Worker w) {
        RecordingPartitionStore s = store[w.node];
        if (w.scopeStep == 2 && exitWithoutOwnership || s.access(w.arrayId, w.partition).allows(w.needed())) {
            if (w.overwriteWriter != null) {
                s.takeBackOverwrite(w.arrayId, w.partition, w.overwriteWriter);
                w.overwriteWriter = null;
                overwritesFellBack++;
            }
            perform(w);
            return;
        }
        if (w.overwrite && w.overwriteWriter == null) {
            Runnable writer = () -> {
                w.overwriteWriter = null;
                overwritesGranted++;
                perform(w);
            };
            if (s.registerOverwrite(w.arrayId, w.partition, writer)) w.overwriteWriter = writer;
        }
        boolean granted = w.overwrite ? engine[w.node].requestOverwrite(w.arrayId, w.partition)
                : engine[w.node].request(w.arrayId, w.partition, w.needed());
        if (engine[w.node].isHome(w.arrayId, w.partition) && engine[w.node].wantsWrite(w.arrayId, w.partition)) homeWantWrite++;
        if (granted) throw new AssertionError("request() returned true for " + w + " but the store has "
                + store[w.node].access(w.arrayId, w.partition));
    }

    void perform(Worker w) {
        RecordingPartitionStore s = store[w.node];
        long k = elementKey(w.arrayId, w.partition, w.element);
        if (w.scopeStep == 1) {
            for (int e = 0; e < elements; e++) {
                int v = s.readInt(w.arrayId, w.partition, e);
                int expected = oracle.getOrDefault(elementKey(w.arrayId, w.partition, e), 0);
                if (v != expected) {
                    throw new AssertionError("stale copy: " + w + " copied " + v + " from element " + e + ", last write was " + expected);
                }
            }
            w.scopeArray = w.arrayId;
            w.scopePartition = w.partition;
            event("done " + w);
        } else if (w.overwrite || w.scopeStep == 2) {
            int first = nextValue;
            for (int e = 0; e < elements; e++) {
                int v = nextValue++;
                s.writeInt(w.arrayId, w.partition, e, v);
                oracle.put(elementKey(w.arrayId, w.partition, e), v);
            }
            writes++;
            if (w.scopeStep == 2) {
                w.scopeArray = -1;
                w.scopePartition = -1;
                scopesExited++;
            }
            event("done " + w + " = " + first + ".." + (nextValue - 1));
        } else if (w.write) {
            int v = nextValue++;
            s.writeInt(w.arrayId, w.partition, w.element, v);
            oracle.put(k, v);
            writes++;
            event("done " + w + " = " + v);
        } else {
            int v = s.readInt(w.arrayId, w.partition, w.element);
            int expected = oracle.getOrDefault(k, 0);
            reads++;
            event("done " + w + " -> " + v);
            if (v != expected) {
                throw new AssertionError("stale read: " + w + " returned " + v + ", last write was " + expected);
            }
        }
        w.busy = false;
        opsDone++;
    }

    /** An idle worker sends an update of one element to the partition's home and waits for the answer. */
    void sendUpdate(Worker w, int arrayId, int partition, int element, boolean accumulate) {
        w.start(arrayId, partition, element, true, false, true);
        Update u = new Update(w, arrayId, partition, element, accumulate, nextValue++);
        updatesInFlight.add(u);
        event("send " + u);
    }

    /** The k-th update in flight (modulo their number) arrives at its home, which writes it if it may write the partition. */
    String deliverUpdate(int k) {
        if (updatesInFlight.isEmpty()) return "deliver update: none in flight";
        Update u = updatesInFlight.remove(k % updatesInFlight.size());
        updatesWaiting.computeIfAbsent(partitionKey(u.arrayId(), u.partition()), x -> new ArrayList<>()).add(u);
        event("arrives " + u);
        writeUpdates(u.arrayId(), u.partition());
        return "arrives " + u;
    }

    /**
     * The home of {@code arrayId:partition} writes (adds) the updates waiting there, in order, and
     * answers each, if its store allows it; else it asks its engine for the access (the runtime
     * writes them right in the grant; here a later step finds the access, or asks again if it was
     * taken away first, as a lazy worker does).
     */
    void writeUpdates(int arrayId, int partition) {
        List<Update> waiting = updatesWaiting.get(partitionKey(arrayId, partition));
        if (waiting == null || waiting.isEmpty()) return;
        int h = home[arrayIndex(arrayId)][partition];
        Access needed = updateBeforeInvalidation ? Access.READ : Access.READ_WRITE;
        if (!store[h].access(arrayId, partition).allows(needed)) {
            if (engine[h].request(arrayId, partition, needed)) {
                throw new AssertionError("node " + h + ": request() returned true for an update of " + arrayId + ":" + partition
                        + " but the store has " + store[h].access(arrayId, partition));
            }
            return;
        }
        for (Update u : waiting) {
            long key = elementKey(arrayId, partition, u.element());
            int value = u.accumulate() ? store[h].readInt(arrayId, partition, u.element()) + u.value() : u.value();
            store[h].writeInt(arrayId, partition, u.element(), value);
            oracle.put(key, u.accumulate() ? oracle.getOrDefault(key, 0) + u.value() : u.value());
            updateAnswers.add(u);
            updatesWritten++;
            writes++;
            event("node " + h + " writes " + u + " and answers");
        }
        waiting.clear();
    }

    /** The k-th answer in flight (modulo their number) reaches its worker, whose update is then done. */
    String deliverAnswer(int k) {
        if (updateAnswers.isEmpty()) return "deliver answer: none in flight";
        Update u = updateAnswers.remove(k % updateAnswers.size());
        u.worker().busy = false;
        u.worker().update = false;
        opsDone++;
        event("answered " + u);
        return "answered " + u;
    }

    /** @return whether an update is in flight, waits at its home or has its answer in flight */
    boolean anyUpdate() {
        if (!updatesInFlight.isEmpty() || !updateAnswers.isEmpty()) return true;
        for (List<Update> w : updatesWaiting.values()) if (!w.isEmpty()) return true;
        return false;
    }

    /** One step of the updates' part of a drain: an arrival, the homes' writes, an answer. */
    void drainUpdatesOnce() {
        if (!updatesInFlight.isEmpty()) deliverUpdate(rnd.nextInt(updatesInFlight.size()));
        for (Long key : new ArrayList<>(updatesWaiting.keySet())) {
            List<Update> w = updatesWaiting.get(key);
            if (!w.isEmpty()) writeUpdates(w.get(0).arrayId(), w.get(0).partition());
        }
        if (!updateAnswers.isEmpty()) deliverAnswer(rnd.nextInt(updateAnswers.size()));
    }

    void route(int src, CoherenceMessage m) {
        if (m.source() != src) throw new AssertionError("node " + src + " sent " + m + " with source " + m.source());
        if (m.destination() == src) throw new AssertionError("node " + src + " sent a message to itself: " + m);
        if (m.destination() < 0 || m.destination() >= nodes) throw new AssertionError("no node " + m.destination() + ": " + m);
        if ((m.op() == CoherenceOp.GET_S || m.op() == CoherenceOp.GET_M || m.op() == CoherenceOp.GET_M_OVERWRITE)
                && !requestsInFlight.add(m.source() + "/" + m.arrayId() + ":" + m.partition())) {
            throw new AssertionError("node " + src + " sent a second request before the first was answered: " + m);
        }
        queues.get(src * nodes + m.destination()).addLast(m);
    }

    boolean deliverOne() {
        List<ArrayDeque<CoherenceMessage>> ready = new ArrayList<>();
        for (ArrayDeque<CoherenceMessage> q : queues) if (!q.isEmpty()) ready.add(q);
        if (ready.isEmpty()) return false;
        CoherenceMessage m = ready.get(rnd.nextInt(ready.size())).removeFirst();
        messages++;
        event("deliver " + m);
        CoherenceEngine to = engine[m.destination()];
        if (m.op() == CoherenceOp.INV && to.pendingRequest(m.arrayId(), m.partition()) == Access.READ_WRITE) invCrossedUpgrade++;
        if ((m.op() == CoherenceOp.GET_S || m.op() == CoherenceOp.GET_M || m.op() == CoherenceOp.GET_M_OVERWRITE)
                && to.busy(m.arrayId(), m.partition())) requestQueuedWhileBusy++;
        answered(m);
        engine[m.destination()].onMessage(m);
        return true;
    }

    /**
     * Before {@code m} is delivered: a DATA_S or DATA_M answers its destination's request, and so does
     * a push (PUSH_S) that reaches a node whose read is under way (the home drops the crossing GET_S;
     * a write under way stays: its GET_M is answered by a DATA_M).
     */
    void answered(CoherenceMessage m) {
        boolean pushAnswersRead = m.op() == CoherenceOp.PUSH_S
                && engine[m.destination()].pendingRequest(m.arrayId(), m.partition()) == Access.READ;
        if (m.op() == CoherenceOp.DATA_S || m.op() == CoherenceOp.DATA_M || pushAnswersRead) {
            requestsInFlight.remove(m.destination() + "/" + m.arrayId() + ":" + m.partition());
        }
        if (m.op() == CoherenceOp.PUSH_S) pushesDelivered++;
        if (m.op() == CoherenceOp.PUT_S) dropsDelivered++;
    }

    /**
     * The k-th (modulo their number) push a home may make now ({@link CoherenceEngine#canPush}): a
     * partition homed at node h given to a node that holds no copy.
     *
     * @return what was pushed, or null if no push is possible
     */
    String push(int k) {
        List<int[]> possible = new ArrayList<>();
        for (int a = 0; a < arrays; a++) {
            for (int p = 0; p < partitions; p++) {
                int h = home[a][p];
                for (int x = 0; x < nodes; x++) {
                    if (x != h && engine[h].canPush(ARRAY_IDS[a], p, x)) possible.add(new int[] {ARRAY_IDS[a], p, x});
                }
            }
        }
        if (possible.isEmpty()) return null;
        int[] c = possible.get(k % possible.size());
        int h = home[arrayIndex(c[0])][c[1]];
        if (engine[h].push(c[0], c[1], c[2]) != 1) throw new AssertionError("node " + h + " refused a push canPush allowed: " + c[0] + ":" + c[1]);
        pushes++;
        return "push " + c[0] + ":" + c[1] + " from n" + h + " to n" + c[2];
    }

    /**
     * The k-th (modulo their number) drop a node may make now ({@link CoherenceEngine#canDrop}): a
     * shared copy given up unasked (PUT_S to its home).
     *
     * @return what was dropped, or null if no drop is possible
     */
    String drop(int k) {
        List<int[]> possible = new ArrayList<>();
        for (int a = 0; a < arrays; a++) {
            for (int p = 0; p < partitions; p++) {
                for (int x = 0; x < nodes; x++) if (engine[x].canDrop(ARRAY_IDS[a], p)) possible.add(new int[] {ARRAY_IDS[a], p, x});
            }
        }
        if (possible.isEmpty()) return null;
        int[] c = possible.get(k % possible.size());
        if (!engine[c[2]].drop(c[0], c[1])) throw new AssertionError("node " + c[2] + " refused a drop canDrop allowed: " + c[0] + ":" + c[1]);
        drops++;
        return "drop " + c[0] + ":" + c[1] + " at n" + c[2];
    }

    void deliverAll() {
        int guard = 0;
        while (deliverOne()) {
            checkInvariants();
            if (++guard > 1_000_000) throw new AssertionError("messages never stop");
        }
    }

    boolean anyMessage() {
        for (ArrayDeque<CoherenceMessage> q : queues) if (!q.isEmpty()) return true;
        return false;
    }

    boolean anyBusyWorker() {
        for (Worker[] ws : workers) for (Worker w : ws) if (w.busy) return true;
        return false;
    }

    void checkInvariants() {
        for (int ai = 0; ai < arrays; ai++) {
            int a = ARRAY_IDS[ai];
            for (int p = 0; p < partitions; p++) {
                int writer = -1;
                int readers = 0;
                for (int n = 0; n < nodes; n++) {
                    Access s = store[n].access(a, p);
                    if (s == Access.READ_WRITE) {
                        if (writer >= 0) throw new AssertionError("two writers of " + a + ":" + p + ": nodes " + writer + " and " + n);
                        writer = n;
                    } else if (s == Access.READ) {
                        readers++;
                    }
                }
                if (writer >= 0 && readers > 0) {
                    throw new AssertionError("node " + writer + " writes " + a + ":" + p + " while " + readers + " node(s) read it");
                }
                for (int n = 0; n < nodes; n++) {
                    Access s = store[n].access(a, p);
                    Access e = engine[n].access(a, p);
                    if (s != e) throw new AssertionError("node " + n + " " + a + ":" + p + ": engine says " + e + ", store has " + s);
                }
            }
        }
    }

    /** Fault injection for the checker's own test: changes an element of a readable copy behind the protocol's back. */
    Worker corruptReadableCopy() {
        for (int n = 0; n < nodes; n++) {
            for (int ai = 0; ai < arrays; ai++) {
                for (int p = 0; p < partitions; p++) {
                    int a = ARRAY_IDS[ai];
                    if (!store[n].access(a, p).allows(Access.READ)) continue;
                    for (Worker w : workers[n]) {
                        if (w.busy) continue;
                        store[n].writeInt(a, p, 0, -7);
                        event("corrupt n" + n + " " + a + ":" + p + "[0]");
                        w.start(a, p, 0, false, false, false);
                        return w;
                    }
                }
            }
        }
        throw new AssertionError("no idle worker with a readable copy");
    }

    int arrayIndex(int arrayId) {
        for (int i = 0; i < ARRAY_IDS.length; i++) if (ARRAY_IDS[i] == arrayId) return i;
        throw new IllegalArgumentException("array " + arrayId + " not in " + java.util.Arrays.toString(ARRAY_IDS));
    }

    long partitionKey(int arrayId, int partition) {
        return elementKey(arrayId, partition, 0);
    }

    long elementKey(int arrayId, int partition, int element) {
        return ((long) arrayId << 40) | ((long) partition << 20) | element;
    }

    void event(String e) {
        if (trace.size() == TRACE) trace.removeFirst();
        trace.addLast(step + ": " + e);
    }

    String failure(String what) {
        StringBuilder b = new StringBuilder()
                .append("seed ").append(seed).append(" (nodes ").append(nodes).append(", arrays ").append(arrays)
                .append(", partitions ").append(partitions).append(", elements ").append(elements)
                .append(", workers/node ").append(workersPerNode).append(") failed at step ").append(step)
                .append(": ").append(what).append("\nlast ").append(trace.size()).append(" events:");
        for (String e : trace) b.append("\n  ").append(e);
        b.append("\nentries:");
        for (int ai = 0; ai < arrays; ai++) for (int p = 0; p < partitions; p++) for (int n = 0; n < nodes; n++) {
            b.append("\n  ").append(engine[n].describe(ARRAY_IDS[ai], p));
        }
        return b.toString();
    }
}
