package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.DsaProgram;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import io.dsa.agent.AgentState;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The agent of one job inside the JVM its host started for it ({@link AgentProcessMain}): one
 * handler per {@link io.dsa.agent.wire.AgentControlMessage}, each returning its answer (or
 * throwing, which the caller sends as a refusal). Handlers may block (a safe point, a move's
 * connection): the caller runs them off the I/O threads.
 */
final class ChildAgent {
    /** The launch option that restarts the node from the checkpoint at an epoch in its checkpoint directory. */
    static final String RESTART_EPOCH = "restartEpoch";
    /** {@link #restartEpoch}: the newest complete checkpoint ({@code restartEpoch=newest}, node 0 of {@code --restart-from}). */
    static final long NEWEST = -1;
    /** The launch option a host adds: its control address, which a clone reports with its checkpoint copies. */
    static final String HOST_ADDRESS = "hostAddress";
    /** The launch option of a restart's node that a clone of the VM in this JVM becomes: {@code promoteClone=C}. */
    static final String PROMOTE_CLONE = "promoteClone";
    /** How long a clone that keeps checkpoint copies goes on after its VM's node 0 left, waiting to be promoted by a
     *  restart (docs/failures.md, "Clone promotion"); then its JVM ends. */
    static final long PROMOTION_WAIT_MS = 60_000;
    /** How long a step that waits on the VM (a safe point, a connection) may take. */
    static final long STEP_TIMEOUT_MS = AgentHost.TRANSFER_STEP_TIMEOUT_MS;

    private final Connection host;
    private final byte[] clusterSecret;
    /** How the agent protects its connections: the host's mode. */
    private final TransportSecurity security;
    private final Runnable vmEnded;
    private volatile AgentLaunchMessage job;
    private volatile DsaProgram program;
    private volatile URLClassLoader loader;
    private volatile DsaAgent agent;
    /** Completed when the program's run returned or threw (its outcome is sent before). */
    private final CompletableFuture<Void> runEnded = new CompletableFuture<>();
    private final Map<Integer, CompletableFuture<?>> expectedMoves = new ConcurrentHashMap<>();
    /** Set once a restart's node took this clone's place: the clone's end no longer ends the JVM. */
    private volatile boolean promoted;

    /** @param vmEnded called when a clone's VM ended (its node 0 left): this JVM should end */
    ChildAgent(Connection host, byte[] clusterSecret, TransportSecurity security, Runnable vmEnded) {
        this.host = host;
        this.clusterSecret = clusterSecret.clone();
        this.security = security;
        this.vmEnded = vmEnded;
    }

    /** @return the supervision connection to the host */
    Connection host() { return host; }

    // ---- starting --------------------------------------------------------------------------------

    /** Loads the program (not for a clone) and, for {@link AgentLaunchMessage#RUN}, starts the agent and its run. */
    Object onLaunch(AgentLaunchMessage m) throws IOException, ReflectiveOperationException {
        if (option(m, PROMOTE_CLONE) != null) return onPromote(m);
        if (job != null) throw new DsaException("this JVM already serves node " + job.nodeId() + " of vm '" + job.vmName() + "'");
        DsaConfig.Builder config = config(m, clusterSecret, security)   // checks the launch before anything is loaded
                .progress(this::progressToHost);
        job = m;
        if (m.mode() != AgentLaunchMessage.CLONE_TARGET) program = load(m);
        if (m.mode() != AgentLaunchMessage.RUN) return new AgentStartedMessage(m.requestId(), null, program != null && program.resumable());
        DsaConfig built = config.build();
        if (m.nodeId() == 0 && built.checkpointEvery() > 0) {   // the launcher restarts from the newest checkpoint it heard of
            Path dir = built.checkpointDir();
            built = config.onCheckpoint(epoch -> host.send(checkpointed(dir, epoch))).build();
        }
        long restartEpoch = restartEpoch(m);
        if (restartEpoch == 0) {
            agent = DsaAgent.start(built);
        } else {
            CheckpointStore.Checkpoint cp = restartCheckpoint(m, built, restartEpoch);
            restartEpoch = cp.manifest().epoch();
            if (restartEpoch(m) == NEWEST) {   // --restart-from: the launcher starts the others from the epoch node 0 took
                host.send(new HostJobEventMessage(0, 0, HostJobEventMessage.CHECKPOINTED, Long.toString(restartEpoch),
                        List.of(cp.dir().getParent().toString()), new long[0]));
            }
            agent = DsaAgent.restart(built, cp);
        }
        host.send(new AgentStartedMessage(m.requestId(), agent.address(), program.resumable()));   // before any outcome
        DsaAgent started = agent;
        long resumeEpoch = restartEpoch;
        if (restartEpoch == 0) {
            startRunner(() -> started.run(program, m.args()));
        } else {
            if (m.nodeId() == 0) {
                started.formed().thenRunAsync(() -> host.send(new HostJobEventMessage(0, 0, HostJobEventMessage.RESUMED,
                        Long.toString(resumeEpoch), List.of(), new long[0])));   // not on the I/O thread that completes it
            }
            startRunner(() -> started.resume(program, m.args()));
        }
        return null;
    }

    /**
     * A restart's node {@code m.nodeId()} takes the place of the clone in this JVM (docs/failures.md,
     * "Clone promotion"): the clone's committed copy of the node's checkpoint at the restart's epoch
     * is checked against the launch, the clone's agent closes, and the node restarts from the copy
     * and runs the program, as {@link #onLaunch} does for a node restarting from its file.
     *
     * @throws DsaException when this JVM runs no clone of the node, or its copy is missing or does not fit
     */
    private Object onPromote(AgentLaunchMessage m) throws IOException, ReflectiveOperationException {
        AgentLaunchMessage clone = job;
        DsaAgent cloneAgent = agent;
        long epoch = restartEpoch(m);
        if (clone == null || clone.mode() != AgentLaunchMessage.CLONE_TARGET || cloneAgent == null) {
            throw new DsaException("this JVM runs no clone to promote to node " + m.nodeId());
        }
        if (clone.nodeId() != m.nodeId() || !clone.vmName().equals(m.vmName()) || epoch < 1) {
            throw new DsaException("the clone in this JVM copies node " + clone.nodeId() + " of vm '" + clone.vmName() + "'; it cannot"
                    + " become node " + m.nodeId() + " of vm '" + m.vmName() + "' restarting at epoch " + epoch);
        }
        io.dsa.agent.checkpoint.CheckpointCopy copy = cloneAgent.cloneCheckpoint(epoch);
        checkFits(copy.manifest(), "the clone's copy of epoch " + epoch, m);
        DsaConfig.Builder config = config(m, clusterSecret, security).progress(this::progressToHost);
        promoted = true;
        cloneAgent.close();
        agent = null;
        job = m;
        program = load(m);
        agent = DsaAgent.restart(config.build(), copy);
        host.send(new AgentStartedMessage(m.requestId(), agent.address(), program.resumable()));   // before any outcome
        DsaAgent started = agent;
        startRunner(() -> started.resume(program, m.args()));
        return null;
    }

    /**
     * @return node 0's event for the launcher once the checkpoint at {@code epoch} in {@code dir} is
     *         complete: the directory, then the clones its manifest lists as current, each as node and
     *         clone id in the values and its host in the lines ({@link HostJobEventMessage#CHECKPOINTED})
     */
    static HostJobEventMessage checkpointed(Path dir, long epoch) {
        List<String> lines = new ArrayList<>(List.of(dir.toString()));
        List<io.dsa.agent.checkpoint.CheckpointManifest.CloneCopy> clones;
        try {
            clones = CheckpointStore.manifest(CheckpointStore.epochDir(dir, epoch)).clones();
        } catch (DsaException e) {
            clones = List.of();   // just committed by this node: only a disk gone bad gets here, and the restart reads it again
        }
        long[] values = new long[2 * clones.size()];
        for (int i = 0; i < clones.size(); i++) {
            values[2 * i] = clones.get(i).node();
            values[2 * i + 1] = clones.get(i).cloneId();
            lines.add(clones.get(i).host());
        }
        return new HostJobEventMessage(0, 0, HostJobEventMessage.CHECKPOINTED, Long.toString(epoch), lines, values);
    }

    /**
     * @return the epoch of the checkpoint the launch restarts from (option {@code restartEpoch=E}),
     *         {@link #NEWEST} for the newest complete one in this host's directory, 0 for a fresh start
     */
    static long restartEpoch(AgentLaunchMessage m) {
        String value = option(m, RESTART_EPOCH);
        return value == null ? 0 : value.equals("newest") ? NEWEST : Long.parseLong(value);
    }

    private static String option(AgentLaunchMessage m, String key) {
        for (String option : m.options()) {
            if (option.startsWith(key + "=")) return option.substring(key.length() + 1);
        }
        return null;
    }

    /**
     * The checkpoint this node restarts from, in this host's checkpoint directory: at {@code epoch}, or
     * the newest whose files for this node verify; checked against the launch (program, arguments, shape).
     *
     * @throws DsaException naming the directory, the file or the value that does not fit
     */
    static CheckpointStore.Checkpoint restartCheckpoint(AgentLaunchMessage m, DsaConfig config, long epoch) {
        Path dir = config.checkpointDir() != null ? config.checkpointDir()
                : checkpointDirectory(m, java.util.Objects.requireNonNullElse(option(m, "checkpointDir"), ""));
        CheckpointStore.Checkpoint cp = null;
        List<String> refused = new ArrayList<>();
        if (epoch != NEWEST) {
            cp = CheckpointStore.forNode(dir, epoch, m.nodeId());
        } else {
            for (long e : CheckpointStore.epochs(dir)) {
                try {
                    cp = CheckpointStore.forNode(dir, e, m.nodeId());
                    break;
                } catch (DsaException ex) {
                    refused.add("checkpoint " + CheckpointStore.epochDir(dir, e) + " refused: " + ex.getMessage());
                }
            }
            if (cp == null) throw new DsaException("no complete checkpoint for node " + m.nodeId() + " in " + dir + refused);
        }
        checkFits(cp.manifest(), "checkpoint " + cp.dir(), m);
        return cp;
    }

    // A checkpoint (`what`) must be of the launch's program, arguments and shape.
    private static void checkFits(io.dsa.agent.checkpoint.CheckpointManifest c, String what, AgentLaunchMessage m) {
        if (!c.program().equals(m.programClass()) || !c.args().equals(m.args()) || c.nodes() != m.nodes()
                || c.threadsPerNode() != m.threadsPerNode()) {
            throw new DsaException(what + " is of " + c.program() + " " + c.args() + " on " + c.nodes() + " nodes x "
                    + c.threadsPerNode() + " threads, not of " + m.programClass() + " " + m.args() + " on " + m.nodes() + " nodes x "
                    + m.threadsPerNode() + " threads");
        }
    }

    /**
     * The program's class from the shipped jar, in a loader of this job's own whose parent holds
     * DSA (so io.dsa types are shared). The class is not initialised before the type check, so a
     * class that is no program never runs its static initialiser.
     */
    private DsaProgram load(AgentLaunchMessage m) throws IOException, ReflectiveOperationException {
        loader = new URLClassLoader("dsa-job-" + m.vmName() + "-" + m.nodeId(), new URL[] {Path.of(m.jarPath()).toUri().toURL()},
                ChildAgent.class.getClassLoader());
        Class<?> type = Class.forName(m.programClass(), false, loader);
        if (!DsaProgram.class.isAssignableFrom(type)) {
            throw new DsaException("class " + m.programClass() + " does not implement " + DsaProgram.class.getName());
        }
        return (DsaProgram) type.getConstructor().newInstance();   // here its static initialiser runs
    }

    /** Starts the agent from a moved or cloned state; it dials nobody until {@link #onConnect}. */
    Object onRestore(AgentRestoreMessage m) {
        if (job == null || agent != null) throw new DsaException("no target waits for a state in this JVM");
        AgentState state = AgentState.decode(m.state());
        DsaConfig config = config(job, clusterSecret, security).progress(this::progressToHost)
                .monitorAddress(state.view().get(0)).build();
        if (m.cloneId() < 0) {
            agent = DsaAgent.restore(config, state);
        } else {
            if (job.mode() != AgentLaunchMessage.CLONE_TARGET) throw new DsaException("this JVM waits for a moved node, not a clone");
            DsaAgent clone = DsaAgent.restoreClone(config, state);
            agent = clone;
            clone.monitorLost().thenRun(() -> cloneVmEnded(clone));
        }
        return new AgentStartedMessage(m.requestId(), agent.address(), program != null && program.resumable());
    }

    /**
     * A clone stops when its VM's node 0 goes, unless it keeps a copy of its node's checkpoint: then
     * a restart may promote it, so it waits {@value #PROMOTION_WAIT_MS} ms for that first.
     */
    private void cloneVmEnded(DsaAgent clone) {
        if (clone.cloneCheckpointEpochs().length == 0) {
            vmEnded.run();
            return;
        }
        CompletableFuture.delayedExecutor(PROMOTION_WAIT_MS, TimeUnit.MILLISECONDS).execute(() -> {
            if (!promoted) vmEnded.run();
        });
    }

    Object onConnect(ConnectPeersMessage m) throws ExecutionException, TimeoutException, InterruptedException {
        running().connectToPeers().get(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return ok(m.requestId(), "connected");
    }

    Object onResume(AgentResumeMessage m) {
        DsaAgent a = running();
        host.send(ok(m.requestId(), "resumed"));
        startRunner(() -> a.resume(program, job.args()));
        return null;
    }

    private void startRunner(Supplier<RunReport> body) {
        int node = job.nodeId();
        Thread runner = new Thread(() -> {
            HostJobEventMessage outcome;
            try {
                RunReport report = body.get();
                outcome = report == null ? null : new HostJobEventMessage(0, node, HostJobEventMessage.DONE, "", report.lines(),
                        new long[] {report.startupNanos(), report.runNanos()});
            } catch (RuntimeException | Error e) {
                outcome = new HostJobEventMessage(0, node, HostJobEventMessage.FAILED,
                        e.getMessage() == null ? e.toString() : e.getMessage(), List.of(), new long[0]);
            }
            if (outcome != null) host.send(outcome);   // null: the node moved away; its new host reports
            runEnded.complete(null);
        }, "dsa-job-" + job.vmName() + "-" + node);
        runner.setContextClassLoader(loader);
        runner.start();
    }

    // ---- status and reads ------------------------------------------------------------------------

    Object onStatus(AgentStatusQueryMessage m) {
        DsaAgent a = agent;
        List<String> rows = a == null ? List.of() : switch (m.detail()) {
            case AgentStatusQueryMessage.WORKERS -> a.workerLines();
            case AgentStatusQueryMessage.COUNTERS -> io.dsa.agent.metrics.CountsRows.format(a.counts());
            default -> List.of();
        };
        return new AgentStatusMessage(m.requestId(), a == null ? 0 : a.partitionsHomed(), a == null ? 0 : a.partitionsCached(), rows);
    }

    /** The elements, read through the coherence protocol, as their bits. */
    Object onRead(ReadArrayMessage m) {
        SharedArray a = running().array(m.name());
        long length = a.layout().length();
        if (m.from() < 0 || m.from() >= length) {
            throw new DsaException("index " + m.from() + " of array '" + m.name() + "' out of range [0, " + length + ")");
        }
        if (m.count() < 1 || m.count() > AgentHost.MAX_READ || m.from() + m.count() > length) {
            throw new DsaException("count " + m.count() + " out of range [1, " + Math.min(AgentHost.MAX_READ, length - m.from())
                    + "] for array '" + m.name() + "' of " + length + " elements from index " + m.from());
        }
        long[] bits = new long[(int) m.count()];
        ElementType type;
        if (a instanceof SharedDoubleArray) type = ElementType.DOUBLE;
        else if (a instanceof SharedFloatArray) type = ElementType.FLOAT;
        else if (a instanceof SharedLongArray) type = ElementType.LONG;
        else if (a instanceof SharedIntArray) type = ElementType.INT;
        else throw new DsaException("array '" + m.name() + "' has an element type this host cannot read");
        for (int k = 0; k < bits.length; k++) {
            int i = (int) m.from() + k;
            if (a instanceof SharedDoubleArray d) bits[k] = Double.doubleToRawLongBits(d.read(i));
            else if (a instanceof SharedFloatArray f) bits[k] = Float.floatToRawIntBits(f.read(i));
            else if (a instanceof SharedLongArray l) bits[k] = l.read(i);
            else bits[k] = ((SharedIntArray) a).read(i);
        }
        return new ElementsMessage(m.requestId(), m.from(), type.ordinal(), bits);
    }

    // ---- the safe point (node 0) -----------------------------------------------------------------

    /** Holds the next global barrier's release and answers when every worker waits there. */
    Object onHold(HoldBarrierMessage m) throws InterruptedException {
        DsaAgent monitor = running();
        String vm = job.vmName();
        CompletableFuture<Long> safe = monitor.holdAtNextGlobalBarrier();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_TIMEOUT_MS);
        while (true) {
            if (runEnded.isDone()) {
                monitor.releaseHeldBarrier();
                throw new DsaException("vm '" + vm + "' reached no safe point: its job ended first");
            }
            try {
                return ok(m.requestId(), "safe point at global barrier " + safe.get(50, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    monitor.releaseHeldBarrier();
                    throw new DsaException("vm '" + vm + "' reached no safe point in " + STEP_TIMEOUT_MS + " ms");
                }
            } catch (ExecutionException | CancellationException e) {
                throw new DsaException("the safe point of vm '" + vm + "' was cancelled", e);
            }
        }
    }

    Object onRelease(ReleaseBarrierMessage m) {
        running().releaseHeldBarrier();
        return ok(m.requestId(), "released");
    }

    // ---- a move of another node ------------------------------------------------------------------

    Object onExpect(ExpectMoveMessage m) {
        expectedMoves.put(m.movingNode(), running().expectMovedNode(m.movingNode()));
        return ok(m.requestId(), "expecting");
    }

    Object onAwait(AwaitMoveMessage m) throws ExecutionException, TimeoutException, InterruptedException {
        CompletableFuture<?> arrived = expectedMoves.get(m.movingNode());
        if (arrived == null) throw new DsaException("node " + job.nodeId() + " expects no move of node " + m.movingNode());
        arrived.get(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return ok(m.requestId(), "arrived");
    }

    Object onCommit(CommitMoveMessage m) {
        expectedMoves.remove(m.movingNode());
        running().commitMovedNode(m.movingNode(), m.address());
        return ok(m.requestId(), "committed");
    }

    Object onAbandon(AbandonMoveMessage m) {
        expectedMoves.remove(m.movingNode());
        running().abandonMovedNode(m.movingNode());
        return ok(m.requestId(), "abandoned");
    }

    // ---- a clone of some node --------------------------------------------------------------------

    Object onAllocateCloneId(AllocateCloneIdMessage m) { return new CloneIdMessage(m.requestId(), running().allocateCloneId()); }

    Object onAdmit(AdmitCloneMessage m) {
        running().admitClone(m.cloneId());
        return ok(m.requestId(), "admitted");
    }

    Object onRegister(RegisterCloneMessage m) {
        running().registerCloneSharers(m.cloneId(), cloneSharers(m));
        return ok(m.requestId(), "registered");
    }

    /**
     * @return the partitions a clone shares, by array, from its registration
     * @throws DsaException when the registration carries no partition list
     */
    static Map<Integer, int[]> cloneSharers(RegisterCloneMessage m) {
        if (m.partitions() == null) throw new DsaException("clone " + m.cloneId() + "'s registration carries no partition list");
        Map<Integer, List<Integer>> byArray = new TreeMap<>();
        for (long entry : m.partitions()) {
            byArray.computeIfAbsent(RegisterCloneMessage.arrayId(entry), k -> new ArrayList<>()).add(RegisterCloneMessage.partition(entry));
        }
        Map<Integer, int[]> held = new TreeMap<>();
        byArray.forEach((array, parts) -> held.put(array, parts.stream().mapToInt(Integer::intValue).toArray()));
        return held;
    }

    // ---- this node on its way out ----------------------------------------------------------------

    /** The state at the safe point: the whole node's (a move) or a clone's copies. */
    Object onSnapshot(SnapshotMessage m) {
        DsaAgent a = running();
        byte[] state = m.cloneId() < 0 ? a.snapshotForMigration().encode() : a.snapshotForClone(m.cloneId()).encode();
        return new HostReplyMessage(m.requestId(), true, "", List.of(), state);
    }

    /** The move committed: the old agent's run returns without a report, and it closes. */
    Object onRetire(RetireMessage m) throws InterruptedException, ExecutionException {
        DsaAgent a = running();
        a.retireAfterMigration();
        try {
            runEnded.get(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new DsaException("the old agent of node " + job.nodeId() + " did not stop within " + STEP_TIMEOUT_MS + " ms");
        } finally {
            a.close();
        }
        return ok(m.requestId(), "retired");
    }

    /** Closes the agent and the program's class loader. */
    void close() {
        DsaAgent a = agent;
        if (a != null) a.close();
        URLClassLoader l = loader;
        if (l != null) {
            try {
                l.close();
            } catch (IOException e) {
                // the JVM is ending
            }
        }
    }

    private DsaAgent running() {
        DsaAgent a = agent;
        if (a == null) throw new DsaException("no agent runs in this JVM yet");
        return a;
    }

    private static HostReplyMessage ok(long requestId, String text) {
        return new HostReplyMessage(requestId, true, text, List.of(), new byte[0]);
    }

    /** A node's progress line goes to the host, which passes it on to the job's launcher. */
    private void progressToHost(int node, String line) {
        host.send(new HostJobEventMessage(0, node, HostJobEventMessage.PROGRESS, line, List.of(), new long[0]));
    }

    /**
     * The directory of this host that takes the VM's checkpoints: {@code dir} as given (the same
     * path on every host), or by default {@code checkpoints-VM} beside the job's jar, in the host's
     * private directory of its work directory (docs/hosts.md, "Work directory and clean-up"), made
     * mode 700 like it.
     *
     * @throws DsaException naming the directory when it cannot be made
     */
    static Path checkpointDirectory(AgentLaunchMessage m, String dir) {
        Path jarDir = m.jarPath().isEmpty() ? null : Path.of(m.jarPath()).toAbsolutePath().getParent();
        if (dir.isEmpty() && jarDir == null) throw new DsaException("node " + m.nodeId() + " has no checkpoint directory and no work directory");
        Path d = dir.isEmpty() ? jarDir.resolve("checkpoints-" + m.vmName()) : Path.of(dir);
        try {
            if (dir.isEmpty() && !java.nio.file.Files.isDirectory(d)) {
                java.nio.file.Files.createDirectories(d, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            }
            return java.nio.file.Files.createDirectories(d);
        } catch (IOException | UnsupportedOperationException e) {
            throw new DsaException("checkpoint directory " + d + " on this host cannot be made: " + e, e);
        }
    }

    /**
     * @return the agent's config for {@code m}: shape, address, the cluster secret and the job's
     *         options, checked ({@code build()} checks the ranges)
     * @throws DsaException naming a mode out of range, a missing program, jar or list, or an
     *         option that is unknown or whose value does not parse
     */
    static DsaConfig.Builder config(AgentLaunchMessage m, byte[] clusterSecret, TransportSecurity security) {
        if (m.mode() < AgentLaunchMessage.RUN || m.mode() > AgentLaunchMessage.CLONE_TARGET) {
            throw new DsaException("launch mode " + m.mode() + " out of range [" + AgentLaunchMessage.RUN + ", "
                    + AgentLaunchMessage.CLONE_TARGET + "]");
        }
        if (m.programClass() == null || m.jarPath() == null || m.args() == null || m.options() == null) {
            throw new DsaException("the launch of node " + m.nodeId() + " lacks its program class, jar path, arguments or options");
        }
        DsaConfig.Builder config = DsaConfig.builder().nodes(m.nodes()).threadsPerNode(m.threadsPerNode())
                .vmName(m.vmName()).nodeId(m.nodeId()).bindHost(m.bindHost()).port(0)
                .monitorAddress(m.monitorAddress()).secret(clusterSecret).transportSecurity(security);
        long checkpointEvery = 0;
        String checkpointDir = "";
        for (String option : m.options()) {
            if (option == null) throw new DsaException("the launch of node " + m.nodeId() + " carries a null option");
            int eq = option.indexOf('=');
            String key = eq < 0 ? option : option.substring(0, eq);
            String value = eq < 0 ? "" : option.substring(eq + 1);
            try {
                if (VmSettingOptions.apply(key, value, config)) continue;
                switch (key) {
                    case "startupTimeoutMs" -> config.startupTimeoutMs(Long.parseLong(value));
                    case "hosts" -> { }   // where the VM's nodes run: the hosts use it for moves
                    case HOST_ADDRESS -> config.hostAddress(value);
                    case PROMOTE_CLONE -> Integer.parseInt(value);   // the host and onPromote act on it
                    case "machineThreads" -> config.machineThreads(Integer.parseInt(value));
                    case "coreShare" -> {   // share/shares
                        int slash = value.indexOf('/');
                        if (slash < 0) throw new IllegalArgumentException("'" + value + "' is not share/shares");
                        config.coreShare(Integer.parseInt(value.substring(0, slash)), Integer.parseInt(value.substring(slash + 1)));
                    }
                    case "checkpointEvery" -> checkpointEvery = Long.parseLong(value);
                    case "checkpointDir" -> checkpointDir = value;
                    case "buddies" -> config.checkpointBuddies(java.util.Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray());
                    case RESTART_EPOCH -> {
                        if (!value.equals("newest") && Long.parseLong(value) < 1) {
                            throw new IllegalArgumentException("epoch " + value + " out of range [1, 2^63) (or 'newest')");
                        }
                    }
                    default -> throw new DsaException("unknown job option '" + option + "'; known: " + String.join(", ", VmSettingOptions.KEYS)
                            + ", startupTimeoutMs, hosts, machineThreads, coreShare, checkpointEvery, checkpointDir, buddies, " + RESTART_EPOCH + ", "
                            + HOST_ADDRESS + ", " + PROMOTE_CLONE);
                }
            } catch (IllegalArgumentException e) {   // valueOf, parseInt
                throw new DsaException("job option '" + option + "' has a value that does not parse: " + e.getMessage());
            }
        }
        // a clone takes no checkpoints of its own (it keeps copies of its node's in memory), so it needs no directory
        if (checkpointEvery > 0 && m.mode() != AgentLaunchMessage.CLONE_TARGET) {
            config.checkpoints(checkpointEvery, checkpointDirectory(m, checkpointDir));
        }
        return config;
    }
}
