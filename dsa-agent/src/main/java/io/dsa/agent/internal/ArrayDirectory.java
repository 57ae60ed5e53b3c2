package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The arrays this node knows, by id, with their partition slots, and the node's
 * {@link CoherenceEngine} over them, which the node's {@link IoThread} owns: every call into the
 * engine runs on that thread, so the engine needs no lock. Inbound coherence messages arrive there
 * already; a worker's miss posts a request ({@link #post}), coalesced per slot so that posting
 * allocates nothing; the safe-point calls of a move or a cloning ({@link #images},
 * {@link #install}, {@link #addSharers}, {@link #admitNodes}) and a worker's {@link #define} are
 * tasks their caller waits for. The engine's store is the slots ({@link Slot} is the one place
 * that turns the engine's word into worker access). Coherence messages for an array not defined
 * here yet (its definition travels from node 0 on another connection) wait here until it is.
 * Waits for a slot's access that no thread blocks in are {@link GrantWaits}'; the arrays' images
 * at a safe point are {@link ArrayImages}'.
 */
final class ArrayDirectory {
    /** How long a caller waits for the I/O thread to run its task before it gives up. */
    static final long IO_TASK_TIMEOUT_MS = 60_000;
    private static final VarHandle POSTED;

    static {
        try {
            POSTED = MethodHandles.lookup().findVarHandle(Slot.class, "posted", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    private final IoThread io;
    private final Waiting waiting;
    private final CoherenceEngine engine;
    private final Map<Integer, ArrayState> arrays = new ConcurrentHashMap<>();
    /** The I/O thread's: messages for arrays not defined yet. */
    private final Map<Integer, List<CoherenceMessage>> earlyCoherence = new HashMap<>();
    /** The I/O thread's: tasks of {@link #whenDefined} for arrays not defined yet. */
    private final Map<Integer, List<Consumer<ArrayState>>> earlyTasks = new HashMap<>();
    /** Futures and tasks waiting for a slot's access (the I/O thread's). */
    private final GrantWaits grantWaits;
    /** Images of the arrays at a safe point (on the I/O thread). */
    private final ArrayImages arrayImages;
    /** The I/O thread's: the waits of {@link #awaitQuiescent}. */
    private final List<CompletableFuture<Void>> quiescence = new ArrayList<>();
    /** The I/O thread's: which partitions homed here go to their returning readers at a global arrival. */
    private final ReaderPushes pushes = new ReaderPushes();
    private final SelfDrops drops = new SelfDrops();
    private volatile String failure;

    /**
     * @param capacity node ids the engine accepts, {@code [0, capacity)} (grows as clones join)
     * @param network where the engine's messages go
     * @param io the thread that owns the engine
     * @param waiting how workers wait for a partition
     */
    ArrayDirectory(int nodeId, int capacity, int nodes, int threadsPerNode, PeerNetwork network, IoThread io, Waiting waiting) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.io = io;
        this.waiting = waiting;
        this.grantWaits = new GrantWaits(nodeId, io, () -> failure, this::request);
        this.engine = new CoherenceEngine(nodeId, capacity, (a, p) -> array(a).layout.homeOf(p), new SlotStore(this::array, grantWaits), m -> {
            if (m.destination() != nodeId) NodeCounters.sent(array(m.arrayId()), m);
            if (m.op() == CoherenceOp.INV) pushes.invalidated(m.arrayId(), m.partition(), m.destination());
            network.send(m.destination(), m);
        });
        this.arrayImages = new ArrayImages(nodeId, nodes, threadsPerNode, engine, arrays, this::array);
    }

    /** @throws IllegalStateException if the array is not known here */
    ArrayState array(int id) {
        ArrayState a = arrays.get(id);
        if (a == null) throw new IllegalStateException("unknown array id " + id + " at node " + nodeId);
        return a;
    }

    /** @return the arrays known here (a live view) */
    java.util.Collection<ArrayState> all() { return arrays.values(); }
    /** @return the partitions of the arrays defined here that {@code node} homes, as a failure names them ({@link LostNode#homed}) */
    String homedBy(int node) {
        List<io.dsa.ArrayLayout> layouts = new java.util.ArrayList<>();
        for (ArrayState a : arrays.values()) layouts.add(a.layout);
        layouts.sort(java.util.Comparator.comparing(l -> l.spec().name()));
        return LostNode.homed(node, layouts, List.of());
    }

    /** @return the array named {@code name}, or null */
    ArrayState named(String name) {
        for (ArrayState a : arrays.values()) if (a.spec.name().equals(name)) return a;
        return null;
    }

    // ---- the I/O thread ------------------------------------------------------------------------------

    /** Defines array {@code id} (idempotent) and hands the engine the messages that waited for it; from any thread. */
    void define(int id, String name, long[] params) {
        onIoThread(() -> {
            if (arrays.containsKey(id)) return null;
            arrays.put(id, new ArrayState(id, Specs.fromParams(name, params), nodes, threadsPerNode, nodeId));
            List<CoherenceMessage> early = earlyCoherence.remove(id);
            if (early != null) for (CoherenceMessage m : early) engine.onMessage(m);
            List<Consumer<ArrayState>> tasks = earlyTasks.remove(id);
            if (tasks != null) for (Consumer<ArrayState> t : tasks) t.accept(arrays.get(id));
            checkQuiescence();
            return null;
        });
    }

    /** A coherence message from the network; on the I/O thread. */
    void onCoherence(CoherenceMessage m) {
        assert io.isCurrent() : "coherence message off the I/O thread";
        if (!arrays.containsKey(m.arrayId())) {
            // the monitor's definition is on its way on another connection
            earlyCoherence.computeIfAbsent(m.arrayId(), k -> new ArrayList<>()).add(m);
            return;
        }
        if (m.source() != nodeId) NodeCounters.received(array(m.arrayId()), m);
        if (m.op() == CoherenceOp.GET_S) pushes.requested(m.arrayId(), m.partition(), m.source());
        drops.beforeMessage(m, engine);
        engine.onMessage(m);
        checkQuiescence();
    }

    /** Homes push partitions to their returning readers ({@link io.dsa.agent.DsaConfig#readerPushes()}); before the node runs. */
    void enableReaderPushes() { pushes.enable(); }

    /** @return whether this node's next global arrival pushes partitions to their returning readers ({@link ReaderPushes}) */
    boolean pushesPending() { return pushes.pending(); }

    /**
     * This node's workers all arrived at a global round: pushes partitions homed here to their
     * returning readers ({@link ReaderPushes#round}); on the I/O thread, before the node's arrival is sent.
     */
    void pushRound() {
        assert io.isCurrent() : "push round off the I/O thread";
        pushes.round(engine);
    }

    /** Drops copies rewritten epoch after epoch ({@link io.dsa.agent.DsaConfig#selfInvalidation()}); before the node runs. */
    void enableSelfDrops() { drops.enable(); }

    /** @return whether this node's next global arrival drops copies ({@link SelfDrops}); any thread */
    boolean dropsPending() { return drops.pending(); }

    /** Marks a global round's drops ({@link SelfDrops#mark}), before its arrival is sent; any thread. */
    void markDropRound() { drops.mark(); }

    /** Runs the marked round's drops ({@link SelfDrops#runMarked}), arrays in a scope here left alone; on the I/O thread. */
    void runDropRound() {
        assert io.isCurrent() : "drop round off the I/O thread";
        drops.runMarked(engine, id -> {
            ArrayState a = arrays.get(id);
            return a != null && a.scopeUse != null;
        });
    }

    /**
     * Runs {@code task} with array {@code arrayId} now if it is defined here, else once it is (its
     * definition travels from node 0 on another connection); on the I/O thread.
     */
    void whenDefined(int arrayId, Consumer<ArrayState> task) {
        assert io.isCurrent() : "whenDefined off the I/O thread";
        ArrayState a = arrays.get(arrayId);
        if (a != null) task.accept(a);
        else earlyTasks.computeIfAbsent(arrayId, k -> new ArrayList<>()).add(task);
    }

    /** Runs {@code task} on the I/O thread once this node has {@code needed} on {@code partition}: {@link GrantWaits#whenAccessible}. */
    void whenAccessible(ArrayState a, int partition, Access needed, Runnable task) {
        grantWaits.whenAccessible(a, partition, needed, task);
    }

    /**
     * The array a copy of partition {@code partition} of array {@code arrayId}, {@code bytes} long,
     * arriving from the network can be decoded into: the slot's own array while its workers have
     * no access to it; else a new array if {@code bytes} is the partition's size (so a chunked copy
     * is not collected in a growing one: a peer still cannot make this node allocate more than a
     * partition); else null (the decoder allocates). On the I/O thread, before the message is
     * handled.
     */
    byte[] receiveBuffer(int arrayId, int partition, int bytes) {
        ArrayState a = arrays.get(arrayId);
        if (a == null || partition < 0 || partition >= a.slots.length) return null;
        byte[] own = a.slots[partition].receiveBuffer(bytes);
        if (own != null) return own;
        return (long) a.layout.partitionElements(partition) * a.spec.elementType().bytes() == bytes ? new byte[bytes] : null;
    }

    /** Node {@code node} (a clone) left: the homes here stop waiting for it and stop listing it; on the I/O thread. */
    void forgetNode(int node) {
        onIoThread(() -> {
            engine.forgetNode(node);
            pushes.forget(node);
            checkQuiescence();
            return null;
        });
    }

    // ---- workers -------------------------------------------------------------------------------------

    /**
     * Blocks until this node may access {@code partition} of {@code a} as {@code needed}: posts a
     * request to the I/O thread and waits for the slot's stamp to change, by the VM's wait
     * strategy, until the access is there. The caller re-checks the stamp after it returns,
     * because the access can be revoked again at any time.
     *
     * @throws io.dsa.DsaException if the job fails first
     */
    void awaitAccess(ArrayState a, int partition, Access needed) {
        Slot s = a.slots[partition];
        if (Slot.accessOf(s.stamp).allows(needed)) return;
        await(a, partition, needed, false);
    }

    /**
     * Blocks until the engine grants this node a read copy of {@code partition} of {@code a} and
     * the slot has its bytes, whatever a scope's cap lets the workers have: a read inside a release
     * scope, whose cap makes every access miss, reads the copy this way. The caller reads
     * {@link Slot#data} and then checks that the stamp is still the one returned.
     *
     * @return the slot's stamp that showed the copy
     * @throws io.dsa.DsaException if the job fails first
     */
    int awaitCopy(ArrayState a, int partition) {
        Slot s = a.slots[partition];
        int stamp = s.stamp;
        if (Slot.grantReadable(stamp) && s.data != null) return stamp;
        return await(a, partition, Access.READ, true);
    }

    // The wait of awaitAccess and awaitCopy: the workers' access, or the engine's grant and the bytes (copy).
    private int await(ArrayState a, int partition, Access needed, boolean copy) {
        Slot s = a.slots[partition];
        WorkerThread w = WorkerThread.waitFor(WorkerThread.PARTITION, a,
                partition | (needed == Access.READ_WRITE ? WorkerThread.WRITE : 0));
        io.waitBegins();   // before the post: a lending I/O thread is not woken for a request this thread sends itself
        try {
            while (true) {
                int observed = s.stamp;
                if (copy ? Slot.grantReadable(observed) && s.data != null : Slot.accessOf(observed).allows(needed)) return observed;
                waiting.checkStopped();
                // any change of the stamp may be our grant, or a grant already revoked again under false
                // sharing: either way look again, and ask again if needed (a grant without bytes gets them)
                post(a, partition, needed);
                waiting.await(s, observed);
            }
        } finally {
            io.waitEnds();
            WorkerThread.resume(w);
        }
    }

    private static final int POSTED_READ = 1;
    private static final int POSTED_WRITE = 2;
    /** A write that may be asked for without data: the slot holds the worker's {@link Overwrite}. */
    private static final int POSTED_OVERWRITE = 4;

    /**
     * A worker lacks {@code needed} on {@code partition}: makes sure the I/O thread asks the engine
     * for it. At most one request task per slot is posted at a time (a write covers a read); later
     * misses coalesce into it. Never blocks, allocates only a slot's task on its first miss. The
     * worker then waits for the slot's stamp to change.
     */
    void post(ArrayState a, int partition, Access needed) {
        post(a, partition, needed == Access.READ_WRITE ? POSTED_WRITE : POSTED_READ);
    }

    /**
     * A worker offered its bytes for all of {@code partition} ({@link Slot#offerOverwrite}): as
     * {@link #post} for a write, which the I/O thread asks for without data if the engine would
     * ({@link #requestOverwrite}).
     */
    void postOverwrite(ArrayState a, int partition) {
        post(a, partition, POSTED_OVERWRITE);
    }

    private void post(ArrayState a, int partition, int bit) {
        Slot s = a.slots[partition];
        if ((s.posted & bit) != 0) return;
        int before = (int) POSTED.getAndBitwiseOr(s, bit);
        if (before != 0) return; // a task is posted and has not taken the bits yet: it serves this one too
        Runnable task = a.requests[partition];
        if (task == null) {
            // racy but benign: two equal tasks may exist; only one is posted at a time (the bits decide)
            task = () -> serve(a, partition);
            a.requests[partition] = task;
        }
        try {
            io.execute(task);
        } catch (RejectedExecutionException e) {
            // the node is closing: its job has ended, and the waiting worker sees that
        }
    }

    /** The posted requests of a slot, on the I/O thread. */
    private void serve(ArrayState a, int partition) {
        int bits = (int) POSTED.getAndSet(a.slots[partition], 0);
        if (bits == 0) return;
        if ((bits & POSTED_OVERWRITE) != 0 && requestOverwrite(a, partition)) return;
        request(a, partition, (bits & (POSTED_WRITE | POSTED_OVERWRITE)) != 0 ? Access.READ_WRITE : Access.READ);
    }

    /**
     * Asks for the partition without data if the slot holds a worker's overwrite and the engine
     * would ask so (no valid copy here, no request under way); the overwrite is claimed first, so
     * its worker no longer takes it back and the grant ({@link SlotStore#overwrite}) finds it.
     *
     * @return whether the request went out without data
     */
    private boolean requestOverwrite(ArrayState a, int partition) {
        Overwrite o = a.slots[partition].overwrite();
        if (o == null || !engine.overwriteAsksWithoutData(a.id, partition) || !o.claim()) return false;
        engine.requestOverwrite(a.id, partition);
        return true;
    }

    private void request(ArrayState a, int partition, Access needed) {
        if (engine.request(a.id, partition, needed)) {
            // granted already: a partition homed here and never touched gets its bytes now
            if (a.slots[partition].materialize(a.layout.partitionBytes(partition))) grantWaits.granted(a.slots[partition]);
        }
    }

    /** @return the engine, for a task on the I/O thread ({@link #onIoThread}) that reads its entries */
    CoherenceEngine engine() {
        assert io.isCurrent() : "the engine off the I/O thread";
        return engine;
    }

    /** @return a future completed once this node has {@code needed} on {@code partition}: {@link GrantWaits#whenGranted} */
    CompletableFuture<Void> whenGranted(ArrayState a, int partition, Access needed) {
        return grantWaits.whenGranted(a, partition, needed);
    }

    /**
     * Blocks until this node's coherence is quiescent: no request of its own under way, no
     * transaction or queued request at its homes, no message waiting for its array's definition.
     * For a safe point, where no worker runs: nothing starts a request there, and every request
     * under way completes (the protocol refuses none), such as a sequential read's prefetch or a
     * {@code requestPartitionCopy}, which a worker does not wait for before a barrier. Not on the I/O thread.
     *
     * @throws DsaException if the job fails first, or requests are still under way after {@link #IO_TASK_TIMEOUT_MS}
     */
    void awaitQuiescent() {
        CompletableFuture<Void> quiet = new CompletableFuture<>();
        onIoThread(() -> {
            runDropRound();   // a round marked before its arrival: its PUT_S leave now, and their acks are waited for
            if (failure != null) quiet.completeExceptionally(new DsaException("job failed: " + failure));
            else if (quiescent()) quiet.complete(null);
            else quiescence.add(quiet);
            return null;
        });
        try {
            quiet.get(IO_TASK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw (DsaException) e.getCause();
        } catch (TimeoutException e) {
            throw new DsaException("node " + nodeId + " is not at a safe point: its coherence requests did not complete within "
                    + IO_TASK_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for node " + nodeId + "'s coherence requests");
        }
    }

    /** @return callers of {@link #awaitQuiescent} still waiting (for tests) */
    int quiescenceWaiters() {
        return onIoThread(quiescence::size);
    }

    private boolean quiescent() {
        return earlyCoherence.isEmpty() && engine.quiescent();
    }

    /** After the engine handled a message: ends the waits of {@link #awaitQuiescent} if it is quiescent now; on the I/O thread. */
    private void checkQuiescence() {
        if (quiescence.isEmpty() || !quiescent()) return;
        for (CompletableFuture<Void> f : quiescence) f.complete(null);
        quiescence.clear();
    }

    /** The job failed: wakes every worker waiting on a slot and fails every future of {@link #whenGranted}; any thread. */
    void fail(String text) {
        if (failure == null) failure = text;
        for (ArrayState a : arrays.values()) for (Slot s : a.slots) s.wake();
        Runnable failGrants = () -> {
            grantWaits.fail(failure);
            for (CompletableFuture<Void> f : quiescence) f.completeExceptionally(new DsaException("job failed: " + failure));
            quiescence.clear();
        };
        if (io.isCurrent()) {
            failGrants.run();
            return;
        }
        try {
            io.execute(failGrants);
        } catch (RejectedExecutionException e) {
            failGrants.run(); // the I/O thread has stopped: nothing else touches the map
        }
    }

    /** @return {@code {homed, cached}}: partitions homed here, and readable copies of partitions homed elsewhere */
    int[] partitionCounts() {
        int homed = 0;
        int cached = 0;
        for (ArrayState a : arrays.values()) {
            for (int p = 0; p < a.slots.length; p++) {
                if (a.layout.homeOf(p) == nodeId) homed++;
                else if (Slot.readable(a.slots[p].stamp)) cached++;
            }
        }
        return new int[] {homed, cached};
    }

    // ---- safe points (a move or a cloning), and clones --------------------------------------------------

    /** The engine accepts node ids below {@code count}. */
    void admitNodes(int count) {
        onIoThread(() -> {
            engine.admitNodes(count);
            return null;
        });
    }

    /**
     * Registers {@code cloneId} as a sharer of those of {@code held} (array id to partitions) that
     * are homed here ({@link ArrayImages#addSharers}). Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    void addSharers(int cloneId, Map<Integer, int[]> held) {
        onIoThread(() -> {
            arrayImages.addSharers(cloneId, held);
            return null;
        });
    }

    /**
     * Every array's directory entries, cached copies and data, by array id ({@link ArrayImages#images}).
     *
     * @throws DsaException if a coherence transaction is under way, or a release or accumulate
     *         scope holds buffered updates (not a safe point)
     */
    List<AgentState.ArrayImage> images() {
        return images(true);
    }

    /** {@link #images()}; {@code copy} false: the slots' own arrays, to be encoded before the safe point ends ({@link ArrayImages#images(boolean)}). */
    List<AgentState.ArrayImage> images(boolean copy) {
        return onIoThread(() -> {
            if (!quiescent()) {
                throw new DsaException("node " + nodeId + " is not at a safe point: a coherence transaction is under way");
            }
            return arrayImages.images(copy);
        });
    }

    /**
     * Installs arrays moved or cloned from another agent ({@link ArrayImages#install}). Before any
     * worker runs here.
     *
     * @throws DsaException if an image does not fit its array
     */
    void install(List<AgentState.ArrayImage> images) {
        onIoThread(() -> {
            arrayImages.install(images);
            return null;
        });
    }

    /** {@link IoThread#callLater} on this node's I/O thread. */
    <T> CompletableFuture<T> onIoThreadLater(Supplier<T> task) {
        return io.callLater(nodeId, task);
    }

    /** {@link IoThread#call} on this node's I/O thread, waiting at most {@link #IO_TASK_TIMEOUT_MS}. */
    <T> T onIoThread(Supplier<T> task) {
        return io.call(nodeId, task, IO_TASK_TIMEOUT_MS);
    }
}
