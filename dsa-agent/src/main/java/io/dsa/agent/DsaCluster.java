package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A whole virtual machine inside this JVM: {@code config.nodes()} real agents talking over
 * loopback sockets.
 *
 * <pre>{@code
 * try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(4).threadsPerNode(2).build())) {
 *     cluster.run(new InnerProduct(), "1024", "32");
 * }
 * }</pre>
 *
 * Each agent runs one program; {@link #run} may be called once per cluster. While it runs,
 * {@link #migrate} moves a node to a new agent (live migration).
 */
public final class DsaCluster implements AutoCloseable {
    private final DsaConfig config;
    private final List<DsaAgent> agents = new ArrayList<>();
    private final Object migrationLock = new Object();
    private final List<DsaAgent> clones = new ArrayList<>();
    private volatile AtomicReferenceArray<CompletableFuture<RunReport>> running;
    private DsaProgram runningProgram;
    private List<String> runningArgs;
    private volatile boolean jobDone;
    /** Whether the agents were started from a checkpoint ({@link #restart}): {@link #run} resumes the program. */
    private boolean restarted;

    private DsaCluster(DsaConfig config) {
        this.config = config;
    }

    /**
     * Starts {@code config.nodes()} agents on loopback. A config without a secret gets a random one.
     *
     * @throws DsaException if an agent cannot start
     */
    public static DsaCluster local(DsaConfig config) {
        DsaConfig base = config.hasSecret() ? config : config.toBuilder().randomSecret().build();
        DsaCluster cluster = new DsaCluster(base);
        try {
            DsaAgent monitor = DsaAgent.start(base.toBuilder().nodeId(0).monitorAddress(null).build());
            cluster.agents.add(monitor);
            for (int n = 1; n < base.nodes(); n++) {
                cluster.agents.add(DsaAgent.start(base.toBuilder().nodeId(n).port(0).monitorAddress(monitor.address()).build()));
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Starts every node of a new VM on loopback from {@code checkpoint}: each node's state and node
     * 0's monitor image, as {@link DsaAgent#restart(DsaConfig, io.dsa.agent.checkpoint.CheckpointStore.Checkpoint)}
     * does for one node. {@link #run} then resumes the program at the checkpoint's epoch (pass the
     * checkpoint's arguments, {@code checkpoint.manifest().args()}); the program must be resumable.
     * A config without a secret gets a random one; its shape must be the checkpoint's.
     *
     * @throws DsaException if an agent cannot start, or a node's file of the checkpoint is damaged
     * @throws IllegalArgumentException if the config's nodes or threads differ from the checkpoint's
     */
    public static DsaCluster restart(DsaConfig config, io.dsa.agent.checkpoint.CheckpointStore.Checkpoint checkpoint) {
        var manifest = checkpoint.manifest();
        if (config.nodes() != manifest.nodes() || config.threadsPerNode() != manifest.threadsPerNode()) {
            throw new IllegalArgumentException("the checkpoint of epoch " + manifest.epoch() + " is of " + manifest.nodes()
                    + " nodes x " + manifest.threadsPerNode() + " threads, the config " + config.nodes() + " x "
                    + config.threadsPerNode());
        }
        DsaConfig base = config.hasSecret() ? config : config.toBuilder().randomSecret().build();
        DsaCluster cluster = new DsaCluster(base);
        cluster.restarted = true;
        try {
            DsaAgent monitor = DsaAgent.restart(base.toBuilder().nodeId(0).monitorAddress(null).build(), checkpoint);
            cluster.agents.add(monitor);
            for (int n = 1; n < base.nodes(); n++) {
                cluster.agents.add(DsaAgent.restart(base.toBuilder().nodeId(n).port(0).monitorAddress(monitor.address()).build(),
                        checkpoint));
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** @return the configuration every agent was started with (node ids aside) */
    public DsaConfig config() { return config; }

    /**
     * Runs {@code program} on every node (a fresh instance per node when the class has a public
     * no-argument constructor, else the given instance) and returns when every worker finished.
     * While it runs, another thread may {@link #migrate} nodes.
     *
     * @throws DsaException carrying the first worker failure
     */
    public RunReport run(DsaProgram program, String... args) {
        return run(program, Long.MAX_VALUE, args);
    }

    /**
     * As {@link #run(DsaProgram, String...)}, failing the job when it has not finished within
     * {@code timeout}: every worker of every node is released with a {@link DsaException} (as when a
     * worker throws), and this throws one that says the run timed out, once the nodes have ended (or
     * after a further {@link DsaConfig#failureTimeoutMs()}, for nodes that do not).
     *
     * @param timeout how long the whole run may take, positive
     * @throws DsaException carrying the first worker failure, or saying that the run timed out
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public RunReport run(DsaProgram program, java.time.Duration timeout, String... args) {
        return run(program, positiveNanos(timeout), args);
    }

    /** @return {@code timeout} in nanoseconds, at most {@code Long.MAX_VALUE} (none) @throws IllegalArgumentException if not positive */
    private static long positiveNanos(java.time.Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout " + timeout.toMillis() + " ms out of range [1, " + Long.MAX_VALUE + "]");
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private RunReport run(DsaProgram program, long timeoutNs, String... args) {
        long startNs = System.nanoTime();
        List<String> argList = Arrays.asList(args.clone());
        ExecutorService pool = Executors.newFixedThreadPool(agents.size(), r -> {
            Thread t = new Thread(r, "dsa-cluster-node");
            t.setDaemon(true);
            return t;
        });
        synchronized (this) {
            if (running != null) throw new DsaException("this cluster already ran a program; start a new cluster for the next");
            running = new AtomicReferenceArray<>(agents.size());
            runningProgram = program;
            runningArgs = argList;
        }
        try {
            for (int n = 0; n < agents.size(); n++) {
                DsaAgent agent = agents.get(n);
                DsaProgram instance = n == 0 ? program : instanceLike(program);
                CompletableFuture<RunReport> f = new CompletableFuture<>();
                running.set(n, f);
                pool.execute(() -> complete(f, () -> restarted ? agent.resume(instance, argList) : agent.run(instance, argList)));
            }
            RunReport first = null;
            DsaException failure = null;
            for (int n = 0; n < agents.size(); n++) {
                while (true) {
                    CompletableFuture<RunReport> f = running.get(n);
                    try {
                        RunReport r = awaitNode(f, startNs, timeoutNs);
                        if (r == null) {
                            // the node moved: its new agent's future was installed before the old one ended
                            if (running.get(n) == f) throw new IllegalStateException("node " + n + " moved without a successor");
                            continue;
                        }
                        if (first == null) first = r;
                    } catch (ExecutionException e) {
                        DsaException d = e.getCause() instanceof DsaException
                                ? (DsaException) e.getCause() : new DsaException(e.getCause().toString(), e.getCause());
                        // prefer the report that carries the original exception
                        if (failure == null || failure.getCause() == null && d.getCause() != null) failure = d;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new DsaException("interrupted while running " + program.getClass().getName());
                    }
                    break;
                }
            }
            if (failure != null) throw failure;
            return first;
        } finally {
            jobDone = true;
            pool.shutdownNow();
        }
    }

    /**
     * Waits for a node's run; once the run's time is up, fails the job (every node's workers are
     * released) and then waits for the node to end at most the failure timeout.
     */
    private RunReport awaitNode(CompletableFuture<RunReport> f, long startNs, long timeoutNs)
            throws ExecutionException, InterruptedException {
        if (timeoutNs == Long.MAX_VALUE) return f.get();
        try {
            return f.get(Math.max(0, startNs + timeoutNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            String text = "the run timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms";
            synchronized (this) {
                for (DsaAgent a : agents) a.failJob(text);
            }
            try {
                return f.get(config.failureTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                throw new ExecutionException(new DsaException(text + "; a node did not end within "
                        + config.failureTimeoutMs() + " ms after it"));
            }
        }
    }

    static void complete(CompletableFuture<RunReport> f, java.util.function.Supplier<RunReport> run) {
        try {
            f.complete(run.get());
        } catch (Throwable t) {
            f.completeExceptionally(t);
        }
    }

    /** @return whether {@link #run} has started and not yet returned (a migration may then be requested) */
    public boolean running() { return running != null && !jobDone; }

    /** @return the agent of node {@code node} now (a migration replaces it) */
    public synchronized DsaAgent agent(int node) {
        if (node < 0 || node >= agents.size()) {
            throw new IllegalArgumentException("node " + node + " out of range [0, " + agents.size() + ")");
        }
        return agents.get(node);
    }

    /**
     * Moves node {@code node} to a new agent bound to {@code bindHost} (port 0) while the job
     * runs: waits for the next plain global barrier (the safe point, held at node 0), snapshots the
     * node, restores the state on the new agent, switches every node's connection to it, retires
     * the old agent and releases the barrier; the node's workers resume on the new agent at the
     * same epoch. Call it from another thread than {@link #run}.
     *
     * @return the addresses, the epoch, the pause and the bytes moved
     * @throws DsaException if {@code node} is 0 (the monitor cannot move, see docs/runtime.md), no
     *         resumable job runs, the job ends before the safe point, or the restore fails (the old
     *         agent then stays authoritative and the job goes on)
     */
    public MigrationReport migrate(int node, String bindHost) {
        return migrate(node, bindHost, 0);
    }

    /**
     * As {@link #migrate(int, String)}, at the first plain global barrier that brings the workers to
     * epoch {@code atEpoch} or later (the next one if the job is already past it).
     */
    public MigrationReport migrate(int node, String bindHost, long atEpoch) {
        return migrate(new LocalMove(this, node, bindHost, atEpoch, null, -1));
    }

    /**
     * A move planned before a run by {@link #runWithMigrations}.
     *
     * @param node the node to move, in {@code [1, nodes)}
     * @param bindHost the address the new agent binds to
     * @param atEpoch the move happens at the first plain global barrier that brings the workers to
     *        this epoch or later
     */
    public record PlannedMove(int node, String bindHost, long atEpoch) {}

    /**
     * What {@link #runWithMigrations} did.
     *
     * @param run the job's report
     * @param migrations one report per planned move, in order
     */
    public record PlannedRun(RunReport run, List<MigrationReport> migrations) {}

    /**
     * Runs a {@link DsaProgram#resumable() resumable} program and moves nodes at planned epochs:
     * a scripted reconfiguration whose moves cannot be missed. The safe point of the first move is
     * armed at node 0 before the job starts, and each move arms the next one's before it releases
     * its barrier, so the job cannot pass a planned epoch (or end) before its move happened,
     * whatever the timing of the threads.
     *
     * @param moves in strictly increasing {@code atEpoch} order
     * @throws DsaException if the program is not resumable, the plan is malformed (naming the
     *         move), the job ends before a planned epoch (the moves done so far are in the message),
     *         or a move fails (its node then stays where it was and the job runs on unplanned)
     */
    public PlannedRun runWithMigrations(DsaProgram program, List<PlannedMove> moves, String... args) {
        return runWithMigrations(program, moves, Long.MAX_VALUE, args);
    }

    /**
     * As {@link #runWithMigrations(DsaProgram, List, String...)}, failing the job when it has not
     * finished within {@code timeout}, as {@link #run(DsaProgram, java.time.Duration, String...)}
     * does: a run that would hang (a move gone wrong) ends with the job's first failure instead,
     * and a move still waiting for its safe point then fails too.
     *
     * @param timeout how long the whole run, moves included, may take; positive
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public PlannedRun runWithMigrations(DsaProgram program, List<PlannedMove> moves, java.time.Duration timeout, String... args) {
        return runWithMigrations(program, moves, positiveNanos(timeout), args);
    }

    private PlannedRun runWithMigrations(DsaProgram program, List<PlannedMove> moves, long timeoutNs, String... args) {
        if (!program.resumable()) {
            throw new DsaException("program " + program.getClass().getName() + " is not resumable(): its nodes cannot move"
                    + " while it runs");
        }
        for (int i = 0; i < moves.size(); i++) {
            PlannedMove m = moves.get(i);
            if (m.node() < 1 || m.node() >= agents.size()) {
                throw new DsaException("planned move " + i + ": node " + m.node() + " out of range [1, " + agents.size() + ")");
            }
            if (i > 0 && m.atEpoch() <= moves.get(i - 1).atEpoch()) {
                throw new DsaException("planned move " + i + ": epoch " + m.atEpoch() + " must be above the previous move's "
                        + moves.get(i - 1).atEpoch());
            }
        }
        CompletableFuture<Long> gate = moves.isEmpty() ? null : agent(0).holdAtGlobalBarrier(moves.get(0).atEpoch());
        CompletableFuture<RunReport> job = new CompletableFuture<>();
        Thread runner = new Thread(() -> complete(job, () -> run(program, timeoutNs, args)), "dsa-cluster-planned-run");
        runner.setDaemon(true);
        runner.start();
        List<MigrationReport> reports = new ArrayList<>();
        DsaException failed = null;
        try {
            for (int i = 0; i < moves.size(); i++) {
                PlannedMove m = moves.get(i);
                long rearm = i + 1 < moves.size() ? moves.get(i + 1).atEpoch() : -1;
                awaitSafePoint(gate, m.node());   // the run may not have begun when the move is planned
                LocalMove move = new LocalMove(this, m.node(), m.bindHost(), m.atEpoch(), gate, rearm);
                reports.add(migrate(move));
                gate = move.nextGate();
            }
        } catch (DsaException e) {
            agent(0).releaseHeldBarrier();   // disarms a gate still armed; the job goes on
            failed = new DsaException("planned move " + reports.size() + " failed after " + reports + ": " + e.getMessage(), e);
        }
        RunReport report;
        try {
            report = job.get();
        } catch (ExecutionException e) {
            if (failed != null) e.getCause().addSuppressed(failed);
            throw e.getCause() instanceof DsaException d ? d : new DsaException(e.getCause().toString(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while running " + program.getClass().getName());
        }
        if (failed != null) throw failed;
        return new PlannedRun(report, reports);
    }

    /** Runs one move's choreography (one move at a time: one gate at node 0). */
    private MigrationReport migrate(LocalMove move) {
        synchronized (migrationLock) {
            move.choreography().run();
            return move.report();
        }
    }

    /** What runs now, for a move of {@code node}; refuses a move that cannot be made (docs/runtime.md, "Refusals"). */
    record Job(DsaProgram program, List<String> args) {}

    synchronized Job movableJob(int node) {
        if (node == 0) {
            throw new DsaException("node 0 cannot migrate: it is the monitor (registry, barrier root, lock home and the"
                    + " job's lifecycle); migrate nodes 1.." + (agents.size() - 1));
        }
        if (node < 0 || node >= agents.size()) throw new DsaException("node " + node + " out of range [1, " + agents.size() + ")");
        if (!clones.isEmpty()) {
            // the clones hold connections to the node and are sharers at its homes; they are not told of moves
            throw new DsaException("node " + node + " cannot migrate: the VM has " + clones.size() + " clone(s) (ids "
                    + agents.size() + ".." + (agents.size() + clones.size() - 1) + "), and moves do not update clones yet");
        }
        if (running == null || jobDone) throw new DsaException("no job is running on this cluster: nothing to migrate");
        return new Job(runningProgram, runningArgs);
    }

    /**
     * The commit of a move in this cluster: {@code target} is node {@code node} from now, and its run's
     * outcome is {@code successor}'s.
     *
     * @return the old agent's run
     */
    CompletableFuture<RunReport> replace(int node, DsaAgent target, CompletableFuture<RunReport> successor) {
        CompletableFuture<RunReport> old = running.get(node);
        running.set(node, successor);
        synchronized (this) {
            agents.set(node, target);
        }
        return old;
    }

    /**
     * Starts a clone of node {@code node}: a new node (id {@code nodes + clones so far}) bound to
     * {@code bindHost}, holding SHARED copies of every partition {@code node} holds valid data of
     * (its homed partitions not owned elsewhere and its shared cached copies), registered as a
     * sharer at each home so that later writes invalidate them. While a job runs, the copy is
     * taken at the next plain global barrier (held at node 0). The clone runs no workers of the
     * job; it serves reads through {@link DsaAgent#array(String)} ({@link #clone(int)}).
     *
     * @throws DsaException if {@code node} is out of range, the job ends before the safe point,
     *         or the clone cannot start (nothing then refers to it)
     */
    public CloneReport cloneNode(int node, String bindHost) {
        synchronized (migrationLock) {
            LocalClone clone = new LocalClone(this, node, bindHost);
            clone.choreography().run();
            return clone.report();
        }
    }

    /** @return the id the next clone of {@code node} gets */
    synchronized int nextCloneId(int node) {
        if (node < 0 || node >= agents.size()) throw new DsaException("node " + node + " out of range [0, " + agents.size() + ")");
        return agents.size() + clones.size();
    }

    synchronized void addClone(DsaAgent clone) { clones.add(clone); }

    /** @return the agent of clone {@code cloneId} (as {@link CloneReport#cloneNode()} named it) */
    public synchronized DsaAgent clone(int cloneId) {
        int i = cloneId - agents.size();
        if (i < 0 || i >= clones.size()) {
            throw new IllegalArgumentException("clone " + cloneId + " out of range [" + agents.size() + ", " + (agents.size() + clones.size()) + ")");
        }
        return clones.get(i);
    }

    void awaitSafePoint(CompletableFuture<Long> safe, int node) {
        while (true) {
            if (jobDone) throw new DsaException("node " + node + " did not reach a safe point: the job ended first");
            try {
                safe.get(50, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                // the workers are still between barriers
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                throw new DsaException("the safe point for node " + node + " was cancelled", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for node " + node + " to reach a safe point");
            }
        }
    }

    static DsaProgram instanceLike(DsaProgram program) {
        Class<?> type = program.getClass();
        if (!Modifier.isPublic(type.getModifiers()) || type.isAnonymousClass() || type.isSynthetic()) return program;
        try {
            Constructor<?> c = type.getConstructor();
            return (DsaProgram) c.newInstance();
        } catch (ReflectiveOperationException e) {
            return program;
        }
    }

    /** Stops every agent. Idempotent. */
    @Override
    public synchronized void close() {
        for (DsaAgent a : clones) a.close();
        for (DsaAgent a : agents) a.close();
    }
}
