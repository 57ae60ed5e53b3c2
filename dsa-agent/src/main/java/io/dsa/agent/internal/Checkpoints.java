package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
import io.dsa.agent.wire.BuddyCopyMessage;
import io.dsa.agent.wire.StatusMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Checkpoints at global barrier epochs (docs/failures.md, "Checkpoints"): every
 * {@code checkpointEvery} global barriers, at the safe point a migration uses (node 0 holds a plain
 * global release, {@link MigrationGate}), every node takes its {@link AgentState} into memory, node 0
 * sends the release, and then, while the workers go on, every node writes its state to
 * {@code dir/epoch-<E>/node-<k>.snap} and node 0 writes the manifest last.
 *
 * <p>Node 0 drives it on this node's checkpoint thread, in rounds over {@link StatusMessage}s:
 * <ol>
 * <li>{@link StatusMessage#CHECKPOINT_QUIESCE}, node after node (0 first): each answers once its
 *     coherence is quiescent ({@link ArrayDirectory#awaitQuiescent}). After the last answer no
 *     request is on its way anywhere (the argument of docs/runtime.md, "The safe point");</li>
 * <li>{@link StatusMessage#CHECKPOINT_WRITE} to all at once: each snapshots and encodes its state (the
 *     payload, a copy), answers with the file's size and CRC32C (round 2), then writes its file and
 *     answers again (round 6, {@code WRITTEN}). Node 0 takes its own payload and the monitor's and
 *     sends the held release once every node answered round 2: the pause ends when the state is in
 *     memory, not on disk. Then it writes its files, waits for every round 6, and writes the manifest.</li>
 * </ol>
 * Node 0's checkpoint thread runs one checkpoint at a time, so the next one's release waits until
 * the one before is committed. A move or clone that node 0's gate holds a release for also waits
 * for it ({@link #afterPending}), and node 0 reports its workers done only after it
 * ({@link #awaitPending}): every node is still there for the rounds after the release.
 * On hosts ({@link io.dsa.agent.DsaConfig#checkpointBuddies()} set; docs/failures.md, "Checkpoints
 * on hosts") every host has a directory of its own: each node prepares its host's in round 1; in
 * round 2 each node also sends its payload to its buddy ({@link BuddyCopyMessage}; node 0 its
 * monitor image too), which writes it as {@code buddy-<k>.snap} on its host and answers node 0
 * (round 3); once every file and every copy is written, node 0 sends the manifest to every node
 * ({@link StatusMessage#CHECKPOINT_COMMIT}, round 4), each writes it into its host's directory,
 * and node 0 writes its own last. A copy is handled on this node's buddy thread, since node 0's
 * checkpoint thread waits for the rounds.
 * Answers are {@link StatusMessage#CHECKPOINTED}: {@code "<epoch> <round> <bytes> <crc>"}. A node
 * that cannot take its part fails the job (through the monitor), which ends the wait at node 0.
 * Threads: requests arrive on the I/O thread and are handled on the checkpoint thread (they block
 * on quiescence and the disk); node 0's gate hands releases over from the I/O thread.
 */
final class Checkpoints {
    /** Longest wait for a node's part of one round. */
    static final long ROUND_TIMEOUT_MS = ArrayDirectory.IO_TASK_TIMEOUT_MS;
    private static final int QUIESCE = 1;
    private static final int WRITE = 2;
    private static final int BUDDY = 3;
    /** Round of a node's answer that its file is written (round 2's answer came once its payload was taken). */
    private static final int WRITTEN = 6;
    /** Round of the manifest sent to every host (and to the clones that keep copies). */
    static final int COMMIT = 4;
    /** Round of a clone's acknowledgement of its copy of its node's payload ({@link CloneCopies}). */
    static final int CLONE = 5;

    /** Known bugs node 0 can be made to commit, so a test can show its checks find each; package-private. */
    enum Fault {
        /** a clone that a node sent its copy to is listed in the manifest without the clone's acknowledgement */
        CLONE_LISTED_UNACKNOWLEDGED,
        /** node 0 sends the held release before the other nodes took their payloads (they snapshot workers that run on) */
        RELEASE_BEFORE_CAPTURE
    }

    /** A seeded bug, for tests only; null in production. */
    volatile Fault fault;

    private final NodeRuntime rt;
    private final Path dir;
    private final long every;
    /** Whether files are forced to disk ({@link io.dsa.agent.DsaConfig#checkpointSync()}). */
    private final boolean sync;
    private final ExecutorService thread;
    /** Element k: node k's buddy on another host; empty: one directory for all. */
    private final int[] buddies;
    /** Writes the copies this node keeps for its buddies (on hosts), apart from the checkpoint thread. */
    private final ExecutorService buddyThread;
    /** Node 0: the answers awaited, by "epoch round node". */
    private final Map<String, CompletableFuture<String>> waits = new HashMap<>();
    private volatile String failure;
    /** Node 0: the first epoch at which the next checkpoint is due. */
    private volatile long nextEpoch;
    private volatile String program;
    private volatile List<String> args = List.of();

    Checkpoints(NodeRuntime rt, Path dir, long every) {
        this.rt = rt;
        this.dir = dir;
        this.every = every;
        this.sync = rt.config.checkpointSync();
        this.nextEpoch = every;
        this.thread = daemonThread("dsa-checkpoint-" + rt.nodeId);
        this.buddies = rt.config.checkpointBuddies();
        this.buddyThread = buddies.length > 0 ? daemonThread("dsa-checkpoint-buddy-" + rt.nodeId) : null;
    }

    private static ExecutorService daemonThread(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Node 0: the job starts (or resumes) at {@code startEpoch} with {@code program} and {@code args}, recorded in every manifest. */
    void jobStarted(String program, List<String> args, long startEpoch) {
        this.program = program;
        this.args = List.copyOf(args);
        this.nextEpoch = (startEpoch / every + 1) * every;
    }

    /** @return whether a checkpoint is due at a plain release bringing the workers to {@code epoch} (node 0's gate asks) */
    boolean due(long epoch) { return program != null && failure == null && epoch >= nextEpoch; }

    /** Node 0: takes the checkpoint at {@code epoch} on the checkpoint thread, then runs {@code release}. */
    void take(long epoch, Runnable release) {
        nextEpoch = (epoch / every + 1) * every;
        AtomicBoolean released = new AtomicBoolean();
        Runnable once = () -> {
            if (released.compareAndSet(false, true)) release.run();
        };
        thread.execute(() -> {
            try {
                coordinate(epoch, once);
            } catch (DsaException e) {
                rt.failJob("checkpoint at epoch " + epoch + " failed: " + e.getMessage());
            } finally {
                once.run();
            }
        });
    }

    /**
     * Node 0: runs {@code action} once the checkpoints taken or queued so far are committed (or failed): on the
     * checkpoint thread, or at once when it is closed. The gate holds a move's release this way.
     */
    void afterPending(Runnable action) {
        try {
            thread.execute(action);
        } catch (RejectedExecutionException e) {
            action.run();
        }
    }

    /**
     * Node 0: waits until the checkpoints taken or queued so far are committed (or failed), at most
     * {@code 2 *} {@link #ROUND_TIMEOUT_MS}; before node 0 reports its workers done, since a checkpoint's files are
     * written after its release and the other nodes must not end before.
     */
    void awaitPending() {
        CompletableFuture<Void> idle = new CompletableFuture<>();
        afterPending(() -> idle.complete(null));
        try {
            idle.get(2 * ROUND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            rt.config.progress().onProgress(0, "the last checkpoint did not end within " + 2 * ROUND_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void coordinate(long epoch, Runnable release) {
        long startNs = System.nanoTime();
        synchronized (waits) {
            waits.clear();   // answers of earlier checkpoints that came too late (a clone's, or one left out)
        }
        for (int k = 0; k < rt.nodes; k++) {
            if (k == 0) rt.arrays.awaitQuiescent();
            else ask(k, QUIESCE, epoch);
        }
        Path epochDir = CheckpointStore.prepare(dir, epoch, sync);
        Map<Integer, CompletableFuture<String>> written = new HashMap<>();
        Map<Integer, CompletableFuture<String>> copied = new java.util.TreeMap<>();
        for (int k = -1; k < rt.nodes && buddies.length > 0; k++) copied.put(k, expect(BUDDY, epoch, k));   // -1: the monitor's
        Map<Integer, CompletableFuture<String>> onDisk = new HashMap<>();
        for (int k = 1; k < rt.nodes; k++) onDisk.put(k, expect(WRITTEN, epoch, k));
        if (fault == Fault.RELEASE_BEFORE_CAPTURE) release.run();
        for (int k = 1; k < rt.nodes; k++) written.put(k, request(k, WRITE, epoch));
        List<CheckpointManifest.FileEntry> files = new ArrayList<>();
        Own own = captureOwn(epoch);
        files.add(own.entry());
        Map<Integer, int[]> clonesOf = new java.util.TreeMap<>();
        for (int k = 1; k < rt.nodes; k++) {
            String answer = await(written.get(k), k, WRITE, epoch);
            files.add(entry(CheckpointStore.nodeFile(k), answer));
            int[] clones = clonesIn(answer);
            if (clones.length > 0) clonesOf.put(k, clones);
        }
        byte[] monitorImage = rt.monitorImage().encode();
        long pauseNs = System.nanoTime() - startNs;
        release.run();   // every state is in memory: the workers go on while the files are written
        persistOwn(epochDir, epoch, own);
        files.add(CheckpointStore.write(epochDir, CheckpointStore.entry(CheckpointStore.MONITOR_FILE, monitorImage), epoch,
                CheckpointStore.MONITOR_NODE, monitorImage, sync));
        for (int k = 1; k < rt.nodes; k++) await(onDisk.get(k), k, WRITTEN, epoch);
        if (buddies.length > 0) {
            rt.peers().send(buddies[0], new BuddyCopyMessage(epoch, CheckpointStore.MONITOR_NODE, monitorImage));
            for (Map.Entry<Integer, CompletableFuture<String>> c : copied.entrySet()) {
                String answer = await(c.getValue(), c.getKey() < 0 ? buddies[0] : buddies[c.getKey()], BUDDY, epoch);
                if (c.getKey() >= 0) files.add(entry(CheckpointStore.buddyFile(c.getKey()), answer));
            }
        }
        List<CheckpointManifest.CloneCopy> clones = acknowledgedClones(clonesOf, files, epoch);
        CheckpointManifest manifest = new CheckpointManifest(epoch, rt.config.vmName(), rt.nodes, rt.threadsPerNode, every, program,
                args, files, clones);
        String text = epoch + "\n" + manifest.encode();
        Map<Integer, CompletableFuture<String>> clonesCommitted = new java.util.TreeMap<>();
        for (CheckpointManifest.CloneCopy c : clones) {
            clonesCommitted.put(c.cloneId(), request(c.cloneId(), COMMIT, epoch, StatusMessage.CHECKPOINT_COMMIT, text));
        }
        if (buddies.length > 0) {   // every host's directory gets the manifest; node 0's last
            List<CompletableFuture<String>> committed = new ArrayList<>();
            for (int k = 1; k < rt.nodes; k++) committed.add(request(k, COMMIT, epoch, StatusMessage.CHECKPOINT_COMMIT, text));
            for (int k = 1; k < rt.nodes; k++) await(committed.get(k - 1), k, COMMIT, epoch);
        }
        // A clone that did not take the manifest is not current: node 0's manifest, which the launcher reads, leaves it out.
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cloneWaitMs());
        List<CheckpointManifest.CloneCopy> current = new ArrayList<>();
        for (CheckpointManifest.CloneCopy c : clones) {
            if (answered(clonesCommitted.get(c.cloneId()), deadlineNs, "clone " + c.cloneId() + " of node " + c.node()
                    + " did not take the manifest of epoch " + epoch) != null) {
                current.add(c);
            }
        }
        if (current.size() != clones.size()) {
            manifest = new CheckpointManifest(epoch, rt.config.vmName(), rt.nodes, rt.threadsPerNode, every, program, args, files, current);
        }
        CheckpointStore.commit(dir, manifest, sync);
        long bytes = files.stream().mapToLong(CheckpointManifest.FileEntry::bytes).sum();
        rt.config.progress().onProgress(0, String.format("checkpoint at epoch %d: %d bytes in %s, %.1f ms paused, %.1f ms to commit%s",
                epoch, bytes, epochDir, pauseNs / 1e6, (System.nanoTime() - startNs) / 1e6, manifest.clones().isEmpty() ? ""
                        : ", current clones " + manifest.clones().stream().map(c -> c.cloneId() + " of node " + c.node()).toList()));
        rt.config.checkpointCommitted().accept(epoch);
    }

    // A manifest entry from an answer "<bytes> <crc32c hex>".
    private static CheckpointManifest.FileEntry entry(String name, String answer) {
        String[] f = answer.split(" ");
        return new CheckpointManifest.FileEntry(name, Long.parseLong(f[0]), Integer.parseUnsignedInt(f[1], 16));
    }

    // The clone ids at the end of a write answer "<bytes> <crc> [<c1,c2,...>]".
    private static int[] clonesIn(String answer) {
        String[] f = answer.split(" ");
        if (f.length < 3 || f[2].isEmpty()) return new int[0];
        return java.util.Arrays.stream(f[2].split(",")).mapToInt(Integer::parseInt).toArray();
    }

    /** How long node 0 waits for the clones' answers of one checkpoint: a clone is an extra, never a reason to stall. */
    private long cloneWaitMs() { return Math.min(ROUND_TIMEOUT_MS, rt.config.failureTimeoutMs()); }

    /**
     * The clone copies of this checkpoint that their clones acknowledged ("<node> <bytes> <crc> <host>")
     * within {@link #cloneWaitMs}; one that did not is left out, with a progress line, and the
     * checkpoint goes on without it.
     */
    private List<CheckpointManifest.CloneCopy> acknowledgedClones(Map<Integer, int[]> clonesOf, List<CheckpointManifest.FileEntry> files,
            long epoch) {
        List<CheckpointManifest.CloneCopy> acknowledged = new ArrayList<>();
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cloneWaitMs());
        for (Map.Entry<Integer, int[]> e : clonesOf.entrySet()) {
            for (int clone : e.getValue()) {
                if (fault == Fault.CLONE_LISTED_UNACKNOWLEDGED) {
                    CheckpointManifest.FileEntry own = files.get(e.getKey());
                    acknowledged.add(new CheckpointManifest.CloneCopy(e.getKey(), clone, own.bytes(), own.crc32c(), ""));
                    continue;
                }
                String answer = answered(expect(CLONE, epoch, clone), deadlineNs, "clone " + clone + " of node " + e.getKey()
                        + " did not acknowledge its copy of epoch " + epoch);
                if (answer == null) continue;
                String[] f = answer.split(" ");
                if (f.length != 4 || Integer.parseInt(f[0]) != e.getKey()) {
                    rt.config.progress().onProgress(0, "clone " + clone + " answered '" + answer + "' for node " + e.getKey() + "'s copy");
                    continue;
                }
                acknowledged.add(new CheckpointManifest.CloneCopy(e.getKey(), clone, Long.parseLong(f[1]), Integer.parseUnsignedInt(f[2], 16),
                        f[3].equals("-") ? "" : f[3]));
            }
        }
        return acknowledged;
    }

    // The answer, or null after a progress line `why` when it does not come by deadlineNs (or the wait failed).
    private String answered(CompletableFuture<String> answer, long deadlineNs, String why) {
        try {
            return answer.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            rt.config.progress().onProgress(0, why + " within " + cloneWaitMs() + " ms: it is not current at this checkpoint");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for the clones' part of a checkpoint");
        }
    }

    /** This node's payload (its encoded state), its entry in the manifest, and the clones it sends a copy to. */
    private record Own(byte[] payload, CheckpointManifest.FileEntry entry, int[] clones) {}

    // This node's snapshot at the safe point, encoded: a copy, so the workers may go on once every node has taken its own.
    // The state itself holds the slots' own arrays (no copy of its own), so it must not outlive this method.
    private Own captureOwn(long epoch) {
        AgentState state = rt.snapshots.snapshot(true, false);
        if (state.epoch() != epoch) {
            throw new DsaException("node " + rt.nodeId + "'s workers resume at epoch " + state.epoch() + ", not at the checkpoint's " + epoch);
        }
        byte[] payload = state.encode();
        // Node 0 restarts only from its files (its monitor image has no copy at a clone).
        int[] clones = rt.nodeId == 0 ? new int[0] : rt.clonesOfThis();
        return new Own(payload, CheckpointStore.entry(CheckpointStore.nodeFile(rt.nodeId), payload), clones);
    }

    // The captured payload written to this node's file, and sent to its buddy and its clones.
    private void persistOwn(Path epochDir, long epoch, Own own) {
        CheckpointStore.write(epochDir, own.entry(), epoch, rt.nodeId, own.payload(), sync);
        if (buddies.length > 0) rt.peers().send(buddies[rt.nodeId], new BuddyCopyMessage(epoch, rt.nodeId, own.payload()));
        for (int c : own.clones()) rt.peers().send(c, new BuddyCopyMessage(epoch, rt.nodeId, own.payload()));
    }

    private String ask(int node, int round, long epoch) { return await(request(node, round, epoch), node, round, epoch); }

    private CompletableFuture<String> request(int node, int round, long epoch) {
        return request(node, round, epoch, round == QUIESCE ? StatusMessage.CHECKPOINT_QUIESCE : StatusMessage.CHECKPOINT_WRITE,
                Long.toString(epoch));
    }

    private CompletableFuture<String> request(int node, int round, long epoch, int code, String text) {
        CompletableFuture<String> answer = expect(round, epoch, node);
        rt.peers().send(node, new StatusMessage(0, code, text));
        return answer;
    }

    // The answer of round `round` about node `node` (for BUDDY: the node whose copy is kept), once it arrives.
    private CompletableFuture<String> expect(int round, long epoch, int node) {
        synchronized (waits) {
            if (failure != null) throw new DsaException("job failed: " + failure);
            // a clone's answer may come before node 0 learns of the clone: it waits here for its expect
            return waits.computeIfAbsent(epoch + " " + round + " " + node, k -> new CompletableFuture<>());
        }
    }

    private static String await(CompletableFuture<String> answer, int node, int round, long epoch) {
        try {
            return answer.get(ROUND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw (DsaException) e.getCause();
        } catch (TimeoutException e) {
            throw new DsaException("node " + node + " did not " + switch (round) {
                case QUIESCE -> "reach quiescence";
                case WRITE -> "take its snapshot";
                case WRITTEN -> "write its snapshot";
                case BUDDY -> "write a buddy copy";
                default -> "write the manifest";
            } + " within " + ROUND_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for node " + node + "'s part of the checkpoint at epoch " + epoch);
        }
    }

    /** Node 0: a node's {@link StatusMessage#CHECKPOINTED}; on the I/O thread. */
    void onAnswer(StatusMessage m) {
        String[] f = m.text().split(" ", 3);
        if (f.length > 2 && f[1].equals(Integer.toString(BUDDY))) {   // "<epoch> 3 <node> <bytes> <crc>": about the node copied
            String[] copy = f[2].split(" ", 2);
            complete(f[0] + " " + BUDDY + " " + copy[0], copy.length > 1 ? copy[1] : "", false);
        } else if (f.length >= 2) {
            complete(f[0] + " " + f[1] + " " + m.node(), f.length > 2 ? f[2] : "", f[1].equals(Integer.toString(CLONE)));
        }
    }

    // `early`: a clone's answer, which may come before node 0 expects it; kept for its expect.
    private void complete(String key, String text, boolean early) {
        CompletableFuture<String> answer;
        synchronized (waits) {
            answer = waits.remove(key);
            if (answer == null && early) {
                waits.put(key, CompletableFuture.completedFuture(text));
                return;
            }
        }
        if (answer != null) answer.complete(text);
    }

    /**
     * On hosts: node {@code m.node()}'s copy, which this node keeps as its buddy: written on the
     * buddy thread into this host's directory, then node 0 is told. On the I/O thread.
     */
    void onBuddyCopy(BuddyCopyMessage m) {
        if (buddyThread == null) {
            rt.reportFailure("node " + rt.nodeId + " got a buddy copy of node " + m.node() + " but keeps none (one shared directory)");
            return;
        }
        buddyThread.execute(() -> {
            try {
                boolean monitor = m.node() == CheckpointStore.MONITOR_NODE;
                String name = monitor ? CheckpointStore.MONITOR_FILE : CheckpointStore.buddyFile(m.node());
                CheckpointManifest.FileEntry f = CheckpointStore.write(CheckpointStore.epochDir(dir, m.epoch()),
                        CheckpointStore.entry(name, m.payload()), m.epoch(), m.node(), m.payload(), sync);
                String answer = m.epoch() + " " + BUDDY + " " + m.node() + " " + f.bytes() + " " + Integer.toHexString(f.crc32c());
                if (rt.nodeId == 0) onAnswer(new StatusMessage(0, StatusMessage.CHECKPOINTED, answer));
                else rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, answer));
            } catch (DsaException e) {
                if (failure == null) rt.reportFailure("node " + rt.nodeId + " could not keep node " + m.node() + "'s copy of the checkpoint at epoch "
                        + m.epoch() + ": " + e.getMessage());
            }
        });
    }

    /** Another node: node 0's request of a round; on the I/O thread, handled on the checkpoint thread. */
    void onRequest(StatusMessage m) {
        long epoch;
        int newline = m.text().indexOf('\n');
        try {
            epoch = Long.parseLong(newline < 0 ? m.text() : m.text().substring(0, newline));
        } catch (NumberFormatException e) {
            rt.reportFailure("node " + rt.nodeId + " got a checkpoint request without an epoch: '" + m.text() + "'");
            return;
        }
        int round = switch (m.code()) {
            case StatusMessage.CHECKPOINT_QUIESCE -> QUIESCE;
            case StatusMessage.CHECKPOINT_WRITE -> WRITE;
            default -> COMMIT;
        };
        thread.execute(() -> {
            try {
                String result = "";
                int answered = round;
                if (round == QUIESCE) {
                    rt.arrays.awaitQuiescent();
                    if (buddies.length > 0) CheckpointStore.prepare(dir, epoch, sync);   // this host's directory
                } else if (round == COMMIT) {
                    CheckpointStore.commit(dir, CheckpointManifest.parse(newline < 0 ? "" : m.text().substring(newline + 1),
                            "the manifest node 0 sent for epoch " + epoch), sync);
                } else {
                    Own own = captureOwn(epoch);
                    CheckpointManifest.FileEntry f = own.entry();
                    result = " " + f.bytes() + " " + Integer.toHexString(f.crc32c()) + (own.clones().length == 0 ? ""
                            : " " + java.util.Arrays.stream(own.clones()).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(",")));
                    rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, epoch + " " + round + result));
                    persistOwn(CheckpointStore.epochDir(dir, epoch), epoch, own);   // node 0 released the workers meanwhile
                    answered = WRITTEN;
                    result = "";
                }
                rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, epoch + " " + answered + result));
            } catch (DsaException e) {
                if (failure == null) rt.reportFailure("node " + rt.nodeId + "'s part of the checkpoint at epoch " + epoch + " failed: " + e.getMessage());
            }
        });
    }

    /** The job failed: every wait for an answer ends with it. Any thread. */
    void fail(String text) {
        List<CompletableFuture<String>> pending;
        synchronized (waits) {
            if (failure == null) failure = text;
            pending = new ArrayList<>(waits.values());
            waits.clear();
        }
        for (CompletableFuture<String> f : pending) f.completeExceptionally(new DsaException("job failed: " + text));
    }

    /** Ends the checkpoint thread (the node closes). */
    void close() {
        thread.shutdownNow();
        if (buddyThread != null) buddyThread.shutdownNow();
    }
}
