package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checkpoints at global barrier epochs (docs/failures.md, "Checkpoints"): every
 * {@code checkpointEvery} global barriers, at the safe point a migration uses (node 0 holds a plain
 * global release, {@link MigrationGate}), every node writes its {@link AgentState} to
 * {@code dir/epoch-<E>/node-<k>.snap}, and node 0 writes the manifest last, then sends the release.
 *
 * <p>Node 0 drives it on this node's checkpoint thread, in two rounds over {@link StatusMessage}s:
 * <ol>
 * <li>{@link StatusMessage#CHECKPOINT_QUIESCE}, node after node (0 first): each answers once its
 *     coherence is quiescent ({@link ArrayDirectory#awaitQuiescent}). After the last answer no
 *     request is on its way anywhere (the argument of docs/runtime.md, "The safe point");</li>
 * <li>{@link StatusMessage#CHECKPOINT_WRITE} to all at once: each snapshots, writes its file and
 *     answers with its size and CRC32C; node 0 writes its own and the monitor's, then the manifest.</li>
 * </ol>
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

    private final NodeRuntime rt;
    private final Path dir;
    private final long every;
    private final ExecutorService thread;
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
        this.nextEpoch = every;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "dsa-checkpoint-" + rt.nodeId);
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
        thread.execute(() -> {
            try {
                coordinate(epoch);
            } catch (DsaException e) {
                rt.failJob("checkpoint at epoch " + epoch + " failed: " + e.getMessage());
            } finally {
                release.run();
            }
        });
    }

    private void coordinate(long epoch) {
        long startNs = System.nanoTime();
        for (int k = 0; k < rt.nodes; k++) {
            if (k == 0) rt.arrays.awaitQuiescent();
            else ask(k, QUIESCE, epoch);
        }
        Path epochDir = CheckpointStore.prepare(dir, epoch);
        Map<Integer, CompletableFuture<String>> written = new HashMap<>();
        for (int k = 1; k < rt.nodes; k++) written.put(k, request(k, WRITE, epoch));
        List<CheckpointManifest.FileEntry> files = new ArrayList<>();
        files.add(writeOwn(epochDir, epoch));
        for (int k = 1; k < rt.nodes; k++) {
            String[] answer = await(written.get(k), k, WRITE, epoch).split(" ");
            files.add(new CheckpointManifest.FileEntry(CheckpointStore.nodeFile(k), Long.parseLong(answer[0]),
                    Integer.parseUnsignedInt(answer[1], 16)));
        }
        files.add(CheckpointStore.write(epochDir, CheckpointStore.MONITOR_FILE, epoch, CheckpointStore.MONITOR_NODE,
                rt.monitorImage().encode()));
        CheckpointStore.commit(dir, new CheckpointManifest(epoch, rt.config.vmName(), rt.nodes, rt.threadsPerNode, every, program,
                args, files));
        long bytes = files.stream().mapToLong(CheckpointManifest.FileEntry::bytes).sum();
        rt.config.progress().onProgress(0, String.format("checkpoint at epoch %d: %d bytes in %s, %.1f ms", epoch, bytes, epochDir,
                (System.nanoTime() - startNs) / 1e6));
    }

    // This node's snapshot at the safe point, written to its file.
    private CheckpointManifest.FileEntry writeOwn(Path epochDir, long epoch) {
        AgentState state = rt.snapshots.snapshot(true);
        if (state.epoch() != epoch) {
            throw new DsaException("node " + rt.nodeId + "'s workers resume at epoch " + state.epoch() + ", not at the checkpoint's " + epoch);
        }
        return CheckpointStore.write(epochDir, CheckpointStore.nodeFile(rt.nodeId), epoch, rt.nodeId, state.encode());
    }

    private String ask(int node, int round, long epoch) { return await(request(node, round, epoch), node, round, epoch); }

    private CompletableFuture<String> request(int node, int round, long epoch) {
        CompletableFuture<String> answer = new CompletableFuture<>();
        synchronized (waits) {
            if (failure != null) throw new DsaException("job failed: " + failure);
            waits.put(epoch + " " + round + " " + node, answer);
        }
        rt.peers().send(node, new StatusMessage(0, round == QUIESCE ? StatusMessage.CHECKPOINT_QUIESCE : StatusMessage.CHECKPOINT_WRITE,
                Long.toString(epoch)));
        return answer;
    }

    private static String await(CompletableFuture<String> answer, int node, int round, long epoch) {
        try {
            return answer.get(ROUND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw (DsaException) e.getCause();
        } catch (TimeoutException e) {
            throw new DsaException("node " + node + " did not " + (round == QUIESCE ? "reach quiescence" : "write its snapshot")
                    + " within " + ROUND_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for node " + node + "'s part of the checkpoint at epoch " + epoch);
        }
    }

    /** Node 0: a node's {@link StatusMessage#CHECKPOINTED}; on the I/O thread. */
    void onAnswer(StatusMessage m) {
        String[] f = m.text().split(" ", 3);
        CompletableFuture<String> answer;
        synchronized (waits) {
            answer = f.length < 2 ? null : waits.remove(f[0] + " " + f[1] + " " + m.node());
        }
        if (answer != null) answer.complete(f.length > 2 ? f[2] : "");
    }

    /** Another node: node 0's request of a round; on the I/O thread, handled on the checkpoint thread. */
    void onRequest(StatusMessage m) {
        long epoch;
        try {
            epoch = Long.parseLong(m.text());
        } catch (NumberFormatException e) {
            rt.reportFailure("node " + rt.nodeId + " got a checkpoint request without an epoch: '" + m.text() + "'");
            return;
        }
        int round = m.code() == StatusMessage.CHECKPOINT_QUIESCE ? QUIESCE : WRITE;
        thread.execute(() -> {
            try {
                String result = "";
                if (round == QUIESCE) {
                    rt.arrays.awaitQuiescent();
                } else {
                    CheckpointManifest.FileEntry f = writeOwn(CheckpointStore.epochDir(dir, epoch), epoch);
                    result = " " + f.bytes() + " " + Integer.toHexString(f.crc32c());
                }
                rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, epoch + " " + round + result));
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
    void close() { thread.shutdownNow(); }
}
