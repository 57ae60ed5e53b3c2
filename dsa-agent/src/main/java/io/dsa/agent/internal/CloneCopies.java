package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.checkpoint.CheckpointCopy;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.wire.BuddyCopyMessage;
import io.dsa.agent.wire.StatusMessage;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A clone's copies of its node's checkpoints, in memory (docs/failures.md, "Clone promotion"): at
 * each checkpoint node k sends its payload to each of its clones ({@link BuddyCopyMessage}), the
 * clone keeps it and acknowledges it to node 0 ({@link StatusMessage#CHECKPOINTED}, round
 * {@link Checkpoints#CLONE}, with its size, CRC32C and the clone's host); node 0 lists the
 * acknowledged copies in the manifest and sends the manifest to the clone
 * ({@link StatusMessage#CHECKPOINT_COMMIT}), which makes the copy <em>current</em> at that epoch.
 * The two newest committed copies are kept, as the directories keep two checkpoints. A current
 * copy lets the clone take node k's place when the VM restarts from that epoch
 * ({@link #committed}).
 *
 * <p>Messages arrive on the I/O thread; {@link #committed} is called from any thread.
 */
final class CloneCopies {
    /** Committed copies kept, newest first: as many checkpoints as a directory keeps. */
    static final int KEEP = 2;

    private final NodeRuntime rt;
    /** The node this clone copies. */
    private final int source;
    /** Copies by epoch: the payload, its CRC32C and, once committed, the manifest. */
    private final TreeMap<Long, Held> copies = new TreeMap<>();

    private record Held(byte[] payload, int crc32c, CheckpointManifest manifest) {}

    CloneCopies(NodeRuntime rt, int source) {
        this.rt = rt;
        this.source = source;
    }

    /** Node {@link #source}'s copy of the checkpoint at {@code m.epoch()}: kept, and acknowledged to node 0. On the I/O thread. */
    void onCopy(BuddyCopyMessage m) {
        if (m.node() != source) {
            rt.reportFailure("clone " + rt.nodeId + " of node " + source + " got a checkpoint copy of node " + m.node());
            return;
        }
        CRC32C crc = new CRC32C();
        crc.update(m.payload());
        int sum = (int) crc.getValue();
        synchronized (copies) {
            copies.put(m.epoch(), new Held(m.payload(), sum, null));
        }
        String host = rt.config.hostAddress().isEmpty() ? "-" : rt.config.hostAddress();
        rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, m.epoch() + " " + Checkpoints.CLONE + " " + source
                + " " + m.payload().length + " " + Integer.toHexString(sum) + " " + host));
    }

    /**
     * Node 0's manifest of the checkpoint at an epoch whose copy this clone acknowledged: the copy is
     * current from now on; older ones but the newest {@value #KEEP} go. On the I/O thread.
     */
    void onCommit(StatusMessage m) {
        int newline = m.text().indexOf('\n');
        CheckpointManifest manifest;
        try {
            manifest = CheckpointManifest.parse(newline < 0 ? "" : m.text().substring(newline + 1), "the manifest node 0 sent to clone "
                    + rt.nodeId);
        } catch (DsaException e) {
            rt.reportFailure(e.getMessage());
            return;
        }
        synchronized (copies) {
            Held h = copies.get(manifest.epoch());
            if (h != null) copies.put(manifest.epoch(), new Held(h.payload(), h.crc32c(), manifest));
            int kept = 0;
            for (java.util.Iterator<Map.Entry<Long, Held>> it = copies.descendingMap().entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Held> e = it.next();
                if (e.getKey() > manifest.epoch()) continue;   // a newer copy, not committed yet
                // older than this commit: the newest committed ones stay, a copy never committed will not be
                if (e.getValue().manifest() == null || ++kept > KEEP) it.remove();
            }
        }
        rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.CHECKPOINTED, manifest.epoch() + " " + Checkpoints.COMMIT));
    }

    /** @return the epochs of the committed copies this clone keeps, newest first */
    long[] committedEpochs() {
        synchronized (copies) {
            return copies.descendingMap().entrySet().stream().filter(e -> e.getValue().manifest() != null)
                    .mapToLong(Map.Entry::getKey).toArray();
        }
    }

    /**
     * @return the committed copy of the checkpoint at {@code epoch}, checked against the manifest's
     *         entry for this clone (size and CRC32C)
     * @throws DsaException naming the epoch when this clone keeps no committed copy of it, or the
     *         copy does not match the manifest
     */
    CheckpointCopy committed(long epoch) {
        Held h;
        synchronized (copies) {
            h = copies.get(epoch);
        }
        if (h == null || h.manifest() == null) {
            throw new DsaException("clone " + rt.nodeId + " of node " + source + " keeps no committed copy of the checkpoint at epoch " + epoch
                    + " (it keeps epochs " + java.util.Arrays.toString(committedEpochs()) + ")");
        }
        CheckpointManifest.CloneCopy entry = h.manifest().clones().stream().filter(c -> c.cloneId() == rt.nodeId && c.node() == source)
                .findFirst().orElseThrow(() -> new DsaException("the manifest of epoch " + epoch + " does not list clone " + rt.nodeId
                        + " of node " + source));
        if (entry.bytes() != h.payload().length || entry.crc32c() != h.crc32c()) {
            throw new DsaException("clone " + rt.nodeId + "'s copy of node " + source + " at epoch " + epoch + " is " + h.payload().length
                    + " bytes, CRC32C " + Integer.toHexString(h.crc32c()) + "; the manifest says " + entry.bytes() + " bytes, CRC32C "
                    + Integer.toHexString(entry.crc32c()));
        }
        return new CheckpointCopy(h.manifest(), source, h.payload());
    }
}
