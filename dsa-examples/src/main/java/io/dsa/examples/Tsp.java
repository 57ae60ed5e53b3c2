package io.dsa.examples;

import io.dsa.DsaException;
import io.dsa.DsaLock;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedIntArray;
import io.dsa.SharedLong;
import io.dsa.SharedLongArray;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Branch and bound for the travelling salesman problem (random asymmetric integer costs, seeded)
 * over a distributed work queue, after the TSP of the DSA (Distributed Shared Abstractions) paper.
 *
 * <ul>
 *   <li><b>Queue fragments.</b> Each node holds one fragment: a best-first priority queue of
 *       subproblems (paths from city 0, ordered by lower bound) shared by the node's workers under
 *       a lock. A worker takes the best subproblem; if many cities remain it pushes the children
 *       whose bound beats the best tour, else it solves the subproblem depth-first.</li>
 *   <li><b>Initial deal.</b> Every node expands the root breadth-first identically until there are
 *       enough subproblems, and keeps every {@code nodeCount}-th one.</li>
 *   <li><b>Sharing between fragments.</b> Work proceeds in rounds of about {@code roundMillis}.
 *       At the end of a round, behind a global barrier, each node publishes its fragment's size in
 *       a shared array; every worker computes the same plan; nodes with more than their share
 *       export their best subproblems into their slots of a shared exchange array, and after
 *       another barrier the nodes with less than their share (then everyone, round robin) import
 *       them.</li>
 *   <li><b>Termination.</b> The job ends at the first round boundary where every fragment is
 *       empty: every worker reads the same sizes after the same barrier, so all agree.</li>
 *   <li><b>Best bound.</b> A {@link SharedLong} at its home node, lowered with compareAndSet when
 *       a better tour is found and read every millisecond or so to prune; the tour itself is
 *       written to a shared array under a {@link DsaLock}.</li>
 * </ul>
 * Thread 0 checks the optimum against a sequential solver (Held-Karp for up to 16 cities, a
 * sequential branch and bound above), and the stored tour against the costs.
 *
 * <p>Arguments: {@code [cities=24] [seed=1] [roundMillis=20] [maxCost=50]}; costs are in
 * {@code [1, maxCost]}.
 */
@ProgramName("tsp")
public final class Tsp implements DsaProgram {
    static final String NAME = "tsp";
    static final String USAGE = "tsp [cities=24] [seed=1] [roundMillis=20] [maxCost=50]";
    /** Subproblems with at most this many cities left are solved depth-first by one worker. */
    static final int DEPTH_FIRST_BELOW = 11;
    /** Exchange slots per node. */
    static final int SLOTS = 32;
    /** Thread 0 reports progress (round, best tour so far, queued subproblems) about this often. */
    static final long PROGRESS_NANOS = 1_000_000_000L;
    // Layout of a subproblem: bound, path cost, depth, unvisited mask, then the path.
    private static final int BOUND = 0;
    private static final int COST = 1;
    private static final int DEPTH = 2;
    private static final int UNVISITED = 3;
    private static final int PATH = 4;

    /** Test hook: when set on node 0's instance, thread 0 adds 1 to the optimum before the check. */
    boolean corruptBeforeCheck;

    private TspInstance instance;
    private long seed;
    private int roundMillis;
    private int itemLength;
    private int nodeCount;
    private int nodeId;
    private SharedLong best;
    private SharedLong tourCost;
    private SharedIntArray tour;
    private DsaLock tourLock;
    private SharedLongArray sizes;
    private SharedLongArray exchange;
    // This node's queue fragment, guarded by itself; active counts workers expanding one of its items.
    private final PriorityQueue<long[]> fragment = new PriorityQueue<>(
            Comparator.<long[]>comparingLong(a -> a[BOUND]).thenComparing(a -> -a[DEPTH]));
    private int active;
    // The best cost this node knows (a cache of the shared best bound).
    private volatile long localBest;

    private int cities;
    private int maxCost;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Tsp() {}

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        instance = TspInstance.random(cities, seed, 1, maxCost);
        itemLength = PATH + cities;
        nodeCount = node.network().nodeCount();
        nodeId = node.network().nodeId();

        int[] initialTour = instance.nearestNeighbourTour();
        long initialCost = instance.tourCost(initialTour);
        localBest = initialCost;
        best = node.createSharedLong("tsp.best", initialCost);
        tourCost = node.createSharedLong("tsp.tourCost", initialCost);
        tour = node.createSharedIntArray("tsp.tour", cities, cities);
        tourLock = node.createLock("tsp.tourLock");
        sizes = node.createSharedLongArray("tsp.sizes", nodeCount, 1);
        exchange = node.createSharedLongArray("tsp.exchange", nodeCount * SLOTS * itemLength, SLOTS * itemLength);

        List<long[]> frontier = initialFrontier(4 * node.network().getGlobalThreadCount(), initialCost);
        for (int i = nodeId; i < frontier.size(); i += nodeCount) fragment.add(frontier.get(i));
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(NAME, args, 4, USAGE);
        cities = ProgramArgs.intArg(NAME, args, 0, "cities", 24, 4, 40);
        seed = ProgramArgs.intArg(NAME, args, 1, "seed", 1, 0, Integer.MAX_VALUE);
        roundMillis = ProgramArgs.intArg(NAME, args, 2, "roundMillis", 20, 1, 60_000);
        maxCost = ProgramArgs.intArg(NAME, args, 3, "maxCost", 50, 1, 1_000_000);
    }

    /** Breadth-first expansion of the root, identical on every node, until {@code target} subproblems. */
    private List<long[]> initialFrontier(int target, long bestCost) {
        int n = instance.n;
        long[] root = new long[itemLength];
        root[UNVISITED] = instance.allButStart();
        root[DEPTH] = 1;
        root[BOUND] = instance.bound(0, root[UNVISITED], 0);
        List<long[]> frontier = new ArrayList<>(List.of(root));
        while (frontier.size() < target && frontier.get(0)[DEPTH] < n - 2) {
            List<long[]> next = new ArrayList<>();
            for (long[] item : frontier) next.addAll(children(item, bestCost));
            frontier = next;
            if (frontier.isEmpty()) break;
        }
        return frontier;
    }

    /** The children of {@code item} whose bound is below {@code bestCost}. */
    private List<long[]> children(long[] item, long bestCost) {
        int depth = (int) item[DEPTH];
        int last = (int) item[PATH + depth - 1];
        long unvisited = item[UNVISITED];
        List<long[]> result = new ArrayList<>();
        for (long m = unvisited; m != 0; m &= m - 1) {
            int v = Long.numberOfTrailingZeros(m);
            long cost = item[COST] + instance.cost[last][v];
            long rest = unvisited & ~(1L << v);
            long b = instance.bound(v, rest, cost);
            if (b >= bestCost) continue;
            long[] child = Arrays.copyOf(item, itemLength);
            child[BOUND] = b;
            child[COST] = cost;
            child[DEPTH] = depth + 1;
            child[UNVISITED] = rest;
            child[PATH + depth] = v;
            result.add(child);
        }
        return result;
    }

    @Override
    public void work(DsaWorker worker) {
        int n = instance.n;
        if (worker.threadId() == 0) tour.write(0, 0, 1, n, instance.nearestNeighbourTour());
        worker.barrier();
        long start = System.nanoTime();
        long[] expanded = {0};
        int rounds = 0;
        long exchanged = 0;
        boolean leader = worker.localThreadId() == 0;
        long lastProgress = start;
        while (true) {
            rounds++;
            processRound(System.nanoTime() + roundMillis * 1_000_000L, expanded);
            // Every worker of the node has left the round before its leader counts the fragment: a
            // worker still expanding would take items after the count, and the export would find
            // fewer than it planned (a null item; TspTest once).
            worker.node().localBarrier().await();
            if (leader) {
                int size;
                synchronized (fragment) { size = fragment.size(); }
                sizes.write(nodeId, size);
            }
            worker.barrier();
            refreshBest();
            long[] s = new long[nodeCount];
            sizes.read(0, 0, 1, nodeCount, s);
            long total = 0;
            for (long x : s) total += x;
            if (total == 0) break;
            if (worker.threadId() == 0 && System.nanoTime() - lastProgress >= PROGRESS_NANOS) {
                lastProgress = System.nanoTime();
                worker.node().progress("round " + rounds + ": best tour so far " + localBest + ", " + total
                        + " subproblems queued");
            }
            int[] exports = new int[nodeCount];
            int[] destinations = plan(s, total, exports);
            exchanged += destinations.length;
            if (leader && exports[nodeId] > 0) export(exports[nodeId]);
            worker.barrier();
            if (leader) importFor(exports, destinations);
        }
        worker.barrier();   // every tour offered; the lock released
        long computeNanos = System.nanoTime() - start;
        long totalExpanded = worker.allReduce(expanded[0], ReduceOp.SUM);

        if (worker.threadId() == 0) {
            long optimum = best.get();
            long storedCost = tourCost.get();
            int[] stored = new int[n];
            tour.read(0, 0, 1, n, stored);
            if (corruptBeforeCheck) optimum += 1;
            String method = check(instance, optimum, storedCost, stored);
            worker.node().report(String.format("tsp: %d cities, optimal tour cost %d (verified against %s), tour %s,"
                    + " %d subproblems expanded in %d rounds, %d moved between queue fragments, compute %.1f ms",
                    n, optimum, method, Arrays.toString(stored), totalExpanded, rounds, exchanged, computeNanos / 1e6));
        }
    }

    /**
     * The exchange plan, identical on every worker: {@code exports[k]} items leave node k (its
     * surplus over the rounded-up share, at most {@link #SLOTS}); the returned array gives the
     * destination node of every exported item, in order of node and slot: first to fill the
     * deficits of nodes below the rounded-down share, then round robin.
     */
    static int[] plan(long[] sizes, long total, int[] exports) {
        int nodes = sizes.length;
        long floor = total / nodes;
        long ceil = (total + nodes - 1) / nodes;
        int count = 0;
        for (int k = 0; k < nodes; k++) {
            exports[k] = (int) Math.min(SLOTS, Math.max(0, sizes[k] - ceil));
            count += exports[k];
        }
        int[] destinations = new int[count];
        int i = 0;
        for (int k = 0; k < nodes && i < count; k++) {
            for (long need = Math.max(0, Math.max(floor, 1) - sizes[k]); need > 0 && i < count; need--) destinations[i++] = k;
        }
        for (int k = 0; i < count; k = (k + 1) % nodes) destinations[i++] = k;
        return destinations;
    }

    /** Moves this node's best {@code count} subproblems into its exchange slots. */
    private void export(int count) {
        long[] buffer = new long[count * itemLength];
        synchronized (fragment) {
            for (int i = 0; i < count; i++) System.arraycopy(fragment.poll(), 0, buffer, i * itemLength, itemLength);
        }
        exchange.write(0, nodeId * SLOTS * itemLength, 1, buffer.length, buffer);
    }

    /** Takes the exported subproblems destined to this node into its fragment. */
    private void importFor(int[] exports, int[] destinations) {
        int i = 0;
        long[] item = new long[itemLength];
        for (int k = 0; k < exports.length; k++) {
            for (int slot = 0; slot < exports[k]; slot++, i++) {
                if (destinations[i] != nodeId) continue;
                exchange.read(0, (k * SLOTS + slot) * itemLength, 1, itemLength, item);
                synchronized (fragment) {
                    fragment.add(item.clone());
                    fragment.notifyAll();
                }
            }
        }
    }

    private void refreshBest() {
        long shared = best.get();
        synchronized (this) {
            if (shared < localBest) localBest = shared;
        }
    }

    /** Works on this node's fragment until it is empty (and no local worker can refill it) or the deadline passes. */
    private void processRound(long deadline, long[] expanded) {
        long lastRefresh = System.nanoTime();
        int[] path = new int[instance.n];
        while (true) {
            long[] item = null;
            synchronized (fragment) {
                while (true) {
                    item = fragment.poll();
                    if (item != null) {
                        active++;
                        break;
                    }
                    if (active == 0 || System.nanoTime() >= deadline) break;
                    try {
                        fragment.wait(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new DsaException(NAME + ": interrupted");
                    }
                }
            }
            if (item == null) return;
            try {
                expanded[0] += expand(item, path);
            } finally {
                synchronized (fragment) {
                    active--;
                    fragment.notifyAll();
                }
            }
            long now = System.nanoTime();
            if (now - lastRefresh > 1_000_000L) {
                refreshBest();
                lastRefresh = now;
            }
            if (now >= deadline) return;
        }
    }

    /** Expands one subproblem: prunes it, pushes its children, or solves it depth-first. */
    private long expand(long[] item, int[] path) {
        if (item[BOUND] >= localBest) return 0;
        int depth = (int) item[DEPTH];
        int left = Long.bitCount(item[UNVISITED]);
        if (left > DEPTH_FIRST_BELOW) {
            List<long[]> children = children(item, localBest);
            if (!children.isEmpty()) {
                synchronized (fragment) {
                    fragment.addAll(children);
                    fragment.notifyAll();
                }
            }
            return 1;
        }
        for (int i = 0; i < depth; i++) path[i] = (int) item[PATH + i];
        long[] bestHere = {localBest};
        return instance.dfs(path, depth, item[COST], item[UNVISITED], bestHere, this::offer);
    }

    /** A complete tour: lowers the shared best with compareAndSet and stores the tour under the lock. */
    private long offer(long cost, int[] path) {
        long current = best.get();
        boolean lowered = false;
        while (cost < current) {
            if (best.compareAndSet(current, cost)) {
                lowered = true;
                current = cost;
                break;
            }
            current = best.get();
        }
        synchronized (this) {
            if (current < localBest) localBest = current;
        }
        if (lowered) {
            int[] copy = path.clone();
            tourLock.lock();
            try {
                if (cost < tourCost.get()) {
                    tour.write(0, 0, 1, copy.length, copy);
                    tourCost.set(cost);
                }
            } finally {
                tourLock.unlock();
            }
        }
        return localBest;
    }

    /**
     * Checks the parallel optimum and the stored tour against a sequential solver.
     *
     * @return the sequential method used
     * @throws DsaException naming what differs, the value and the expected one
     */
    static String check(TspInstance instance, long optimum, long storedCost, int[] stored) {
        int n = instance.n;
        String method = n <= 16 ? "sequential Held-Karp" : "sequential branch and bound";
        long expected = n <= 16 ? instance.heldKarp() : instance.sequentialBranchAndBound();
        if (optimum != expected) {
            throw new DsaException(NAME + ": optimal tour cost = " + optimum + ", expected " + expected + " (" + method + ")");
        }
        if (storedCost != expected) {
            throw new DsaException(NAME + ": stored tour cost = " + storedCost + ", expected " + expected + " (" + method + ")");
        }
        boolean[] seen = new boolean[n];
        for (int c : stored) {
            if (c < 0 || c >= n || seen[c]) {
                throw new DsaException(NAME + ": stored tour " + Arrays.toString(stored) + " is not a tour of " + n
                        + " cities, expected each city once");
            }
            seen[c] = true;
        }
        if (stored[0] != 0) {
            throw new DsaException(NAME + ": stored tour starts at " + stored[0] + ", expected 0");
        }
        long actual = instance.tourCost(stored);
        if (actual != expected) {
            throw new DsaException(NAME + ": stored tour " + Arrays.toString(stored) + " costs " + actual + ", expected "
                    + expected + " (" + method + ")");
        }
        return method;
    }
}
