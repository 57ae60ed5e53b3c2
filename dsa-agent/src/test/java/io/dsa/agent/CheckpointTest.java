package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints at global barrier epochs and a whole VM restarted from one, in one JVM: the
 * resumable relaxation of {@link MigrationTest} (two arrays, a shared counter homed at a node
 * other than 0) with a checkpoint every 5 global barriers, then a VM started from the files.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointTest {
    private static final int NODES = 3;
    private static final String ITERATIONS = "40";

    @TempDir
    Path dir;

    private static DsaConfig.Builder config() {
        return DsaConfig.builder().nodes(NODES).threadsPerNode(2).randomSecret();
    }

    private static List<String> baseline() {
        return baseline(BarrierKind.TREE);
    }

    private static List<String> baseline(BarrierKind kind) {
        try (DsaCluster c = DsaCluster.local(config().barrier(kind).build())) {
            return c.run(new MigrationTest.Relax(), ITERATIONS).lines();
        }
    }

    @Test
    void aRunWithCheckpointsKeepsItsResultAndTheLastTwoCompleteCheckpoints() {
        List<String> expected = baseline();
        try (DsaCluster c = DsaCluster.local(config().checkpoints(5, dir).build())) {
            assertEquals(expected, c.run(new MigrationTest.Relax(), ITERATIONS).lines());
        }
        // 41 global barriers: checkpoints at epochs 5, 10, ..., 40; the last two are kept
        assertEquals(List.of(40L, 35L), CheckpointStore.epochs(dir));
        CheckpointManifest m = CheckpointStore.manifest(CheckpointStore.epochDir(dir, 40));
        assertEquals(MigrationTest.Relax.class.getName(), m.program());
        assertEquals(List.of(ITERATIONS), m.args());
        assertEquals(NODES + 1, m.files().size());
        for (int k = 0; k < NODES; k++) assertTrue(Files.isRegularFile(CheckpointStore.epochDir(dir, 40).resolve(CheckpointStore.nodeFile(k))));
    }

    @Test
    void aVmRestartedFromACheckpointEndsBitwiseIdenticalAndADamagedNewerOneIsRefusedNamingTheFile() throws Exception {
        List<String> expected = baseline();
        try (DsaCluster c = DsaCluster.local(config().checkpoints(5, dir).build())) {
            c.run(new MigrationTest.Relax(), ITERATIONS);
        }
        Path damaged = CheckpointStore.epochDir(dir, 40).resolve(CheckpointStore.nodeFile(2));
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[bytes.length - 3] ^= 1;   // one bit of the data
        Files.write(damaged, bytes);
        List<String> refused = new ArrayList<>();
        CheckpointStore.Checkpoint cp = CheckpointStore.newest(dir, refused::add);
        assertEquals(35, cp.manifest().epoch());
        assertEquals(1, refused.size(), refused.toString());
        assertTrue(refused.get(0).contains("node-2.snap: checksum mismatch"), refused.get(0));

        assertEquals(expected, restart(cp, BarrierKind.TREE));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = BarrierKind.class, names = {"KARY", "CENTRAL"})
    void aRestartWithTheOtherBarrierKindsIsBitwiseIdenticalToo(BarrierKind kind) throws Exception {
        List<String> expected = baseline(kind);
        try (DsaCluster c = DsaCluster.local(config().barrier(kind).checkpoints(7, dir).build())) {
            assertEquals(expected, c.run(new MigrationTest.Relax(), ITERATIONS).lines());
        }
        Files.delete(CheckpointStore.epochDir(dir, 35).resolve(CheckpointStore.MANIFEST));
        CheckpointStore.Checkpoint cp = CheckpointStore.newest(dir, r -> { });
        assertEquals(28, cp.manifest().epoch());
        assertEquals(expected, restart(cp, kind));
    }

    @Test
    void aCheckpointWithoutItsManifestIsIncompleteAndTheOneBeforeIsTaken() throws Exception {
        try (DsaCluster c = DsaCluster.local(config().checkpoints(5, dir).build())) {
            c.run(new MigrationTest.Relax(), ITERATIONS);
        }
        Files.delete(CheckpointStore.epochDir(dir, 40).resolve(CheckpointStore.MANIFEST));
        List<String> refused = new ArrayList<>();
        assertEquals(35, CheckpointStore.newest(dir, refused::add).manifest().epoch());
        assertTrue(refused.get(0).contains("manifest is missing: the checkpoint is incomplete"), refused.toString());
    }

    /** A program that is not resumable cannot take checkpoints: the run fails naming it. */
    public static final class NotResumable implements DsaProgram {
        /** For the cluster's per-node instances. */
        public NotResumable() {}

        @Override
        public void work(DsaWorker w) { w.barrier(); }
    }

    @Test
    void aProgramThatIsNotResumableIsRefusedCheckpointsNamingIt() {
        try (DsaCluster c = DsaCluster.local(config().checkpoints(5, dir).build())) {
            DsaException e = assertThrows(DsaException.class, () -> c.run(new NotResumable()));
            assertTrue(e.getMessage().contains("program " + NotResumable.class.getName() + " is not resumable()"), e.getMessage());
        }
    }

    @Test
    void aCheckpointIntervalOutOfRangeIsRefusedWithTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config().checkpoints(-1, dir).build());
        assertEquals("checkpoint interval (global barriers) -1 out of range [1, " + DsaConfig.MAX_CHECKPOINT_EVERY + "]", e.getMessage());
    }

    /** Starts every node of a new VM from {@code cp}, resumes the relaxation on each, and returns node 0's report lines. */
    static List<String> restart(CheckpointStore.Checkpoint cp, BarrierKind kind) throws Exception {
        DsaConfig base = config().barrier(kind).build();
        List<DsaAgent> agents = new ArrayList<>();
        try {
            agents.add(DsaAgent.restart(base.toBuilder().nodeId(0).build(), cp));
            for (int k = 1; k < NODES; k++) {
                agents.add(DsaAgent.restart(base.toBuilder().nodeId(k).monitorAddress(agents.get(0).address()).build(), cp));
            }
            List<CompletableFuture<RunReport>> runs = new ArrayList<>();
            for (DsaAgent a : agents) {
                runs.add(CompletableFuture.supplyAsync(() -> a.resume(new MigrationTest.Relax(), cp.manifest().args())));
            }
            List<String> lines = runs.get(0).get(60, TimeUnit.SECONDS).lines();
            for (CompletableFuture<RunReport> r : runs) r.get(60, TimeUnit.SECONDS);
            return lines;
        } finally {
            for (DsaAgent a : agents) a.close();
        }
    }

    @Test
    void aStoreWrittenFileReadsBackAndATruncatedOneIsRefused() throws IOException {
        Path e = CheckpointStore.prepare(dir, 7);
        List<CheckpointManifest.FileEntry> files = new ArrayList<>();
        files.add(CheckpointStore.write(e, CheckpointStore.nodeFile(0), 7, 0, new byte[] {1, 2, 3}));
        files.add(CheckpointStore.write(e, CheckpointStore.MONITOR_FILE, 7, CheckpointStore.MONITOR_NODE, new byte[] {4}));
        CheckpointStore.commit(dir, new CheckpointManifest(7, "dsa", 1, 1, 7, "p", List.of("a b", "c\nd"), files));
        CheckpointStore.Checkpoint cp = CheckpointStore.newest(dir, r -> { throw new AssertionError(r); });
        assertEquals(List.of("a b", "c\nd"), cp.manifest().args());
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), boxed(cp.payload(CheckpointStore.nodeFile(0))));
        Path f = e.resolve(CheckpointStore.nodeFile(0));
        Files.write(f, java.util.Arrays.copyOf(Files.readAllBytes(f), CheckpointStore.HEADER_BYTES + 2));
        DsaException refused = assertThrows(DsaException.class, () -> cp.payload(CheckpointStore.nodeFile(0)));
        assertTrue(refused.getMessage().contains("node-0.snap has 30 bytes, the manifest says 31"), refused.getMessage());
    }

    @Test
    void anEditedManifestIsRefusedNamingItsChecksum() throws IOException {
        Path e = CheckpointStore.prepare(dir, 9);
        List<CheckpointManifest.FileEntry> files = List.of(CheckpointStore.write(e, CheckpointStore.nodeFile(0), 9, 0, new byte[] {1}),
                CheckpointStore.write(e, CheckpointStore.MONITOR_FILE, 9, CheckpointStore.MONITOR_NODE, new byte[] {2}));
        CheckpointStore.commit(dir, new CheckpointManifest(9, "dsa", 1, 1, 9, "p", List.of("1"), files));
        Path manifest = e.resolve(CheckpointStore.MANIFEST);
        Files.writeString(manifest, Files.readString(manifest).replace("arg 1\n", "arg 2\n"));
        List<String> refused = new ArrayList<>();
        assertEquals(null, CheckpointStore.newest(dir, refused::add));
        assertTrue(refused.get(0).contains(manifest + ": checksum ") && refused.get(0).contains(" does not match its content"),
                refused.toString());
    }

    /** Clone lines (docs/failures.md, "Clone promotion"): read back as written; a clone of node 0 or with a node's id is refused. */
    @Test
    void aManifestsCloneCopiesReadBackAndOutOfRangeOnesAreRefused() {
        List<CheckpointManifest.FileEntry> files = List.of(new CheckpointManifest.FileEntry("node-0.snap", 10, 1),
                new CheckpointManifest.FileEntry("node-1.snap", 11, 2), new CheckpointManifest.FileEntry("monitor.snap", 3, 3));
        List<CheckpointManifest.CloneCopy> clones = List.of(new CheckpointManifest.CloneCopy(1, 2, 9, 0xdeadbeef, "127.0.0.3:7000"),
                new CheckpointManifest.CloneCopy(1, 3, 9, 7, ""));
        CheckpointManifest m = new CheckpointManifest(4, "dsa", 2, 1, 4, "p", List.of(), files, clones);
        CheckpointManifest back = CheckpointManifest.parse(m.encode(), "test");
        assertEquals(clones, back.clones());
        assertEquals(clones.get(0), back.cloneOf(1, h -> !h.isEmpty()));
        assertEquals(null, back.cloneOf(0, h -> true));
        for (CheckpointManifest.CloneCopy bad : List.of(new CheckpointManifest.CloneCopy(0, 2, 9, 1, ""),
                new CheckpointManifest.CloneCopy(1, 1, 9, 1, ""))) {
            String text = new CheckpointManifest(4, "dsa", 2, 1, 4, "p", List.of(), files, List.of(bad)).encode();
            DsaException e = assertThrows(DsaException.class, () -> CheckpointManifest.parse(text, "m"));
            assertEquals("m: clone " + bad.cloneId() + " of node " + bad.node() + " out of range (node in [1, 2), clone id >= 2)",
                    e.getMessage());
        }
    }

    private static List<Byte> boxed(byte[] b) {
        List<Byte> l = new ArrayList<>();
        for (byte x : b) l.add(x);
        return l;
    }
}
