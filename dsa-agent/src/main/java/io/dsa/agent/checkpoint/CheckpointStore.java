package io.dsa.agent.checkpoint;

import io.dsa.DsaException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * A directory of checkpoints (docs/failures.md, "Checkpoints"): one sub-directory per checkpoint,
 * {@code epoch-<E>/}, holding {@code node-<k>.snap} for every node (its {@code AgentState} at the
 * safe point), {@code monitor.snap} (node 0's registry and barrier roots) and, written last, the
 * {@link CheckpointManifest manifest}. Every file is written to a temporary name and renamed, so a
 * process that dies at any moment leaves either no file or the whole one. With {@code sync} (the
 * VM's {@link io.dsa.agent.DsaConfig#checkpointSync()}, true by default; the overloads without it
 * force) each file is also forced to disk before its rename, the directory before the manifest is
 * written (every node's rename is durable) and after its rename again, so that a crash of the
 * operating system leaves no torn file either. A checkpoint counts as complete only with its manifest.
 *
 * <p>A {@code .snap} file is a 28-byte header and the payload:
 * <pre>
 *  0       4        6        8         16       20        24       28
 *  +-------+--------+--------+---------+--------+---------+--------+-----------------+
 *  | "DSCK"| version| 0      | epoch   | node   | length  | crc32c | payload (length) |
 *  +-------+--------+--------+---------+--------+---------+--------+-----------------+
 *  big-endian; node -1 for monitor.snap; crc32c of the payload
 * </pre>
 *
 * <p>Static methods, safe from any thread for different files; node 0 alone writes manifests and
 * removes old checkpoints.
 */
public final class CheckpointStore {
    /** "DSCK" */
    public static final int MAGIC = 0x4453434B;
    /** Header bytes before the payload. */
    public static final int HEADER_BYTES = 28;
    /** The manifest's name in an epoch's directory. */
    public static final String MANIFEST = "manifest";
    /** The monitor image's name in an epoch's directory. */
    public static final String MONITOR_FILE = "monitor.snap";
    /** Complete checkpoints kept: the newest and the one before it (if the newest is damaged). */
    public static final int KEEP = 2;
    /** The node id the monitor file's header carries. */
    public static final int MONITOR_NODE = -1;
    private static final Pattern EPOCH_DIR = Pattern.compile("epoch-(\\d{1,18})");
    private static final Pattern FILE_NAME = Pattern.compile("(node|buddy)-\\d{1,4}\\.snap|" + Pattern.quote(MONITOR_FILE));

    private static final java.util.concurrent.atomic.AtomicLong TEMP_FILES = new java.util.concurrent.atomic.AtomicLong();

    private CheckpointStore() {}

    /**
     * A complete checkpoint found in a directory.
     *
     * @param dir its epoch's directory
     * @param manifest its manifest
     */
    public record Checkpoint(Path dir, CheckpointManifest manifest) {
        /**
         * Reads and verifies file {@code name} of this checkpoint.
         *
         * @return its payload
         * @throws DsaException naming the file when it is missing, torn, or its checksum does not match
         */
        public byte[] payload(String name) { return read(dir, manifest, name); }

        /**
         * Reads and verifies node {@code node}'s snapshot: its own file, or where this directory
         * holds only the buddy copy (a host that keeps node k's copy, docs/failures.md, "Checkpoints
         * on hosts"), that one.
         *
         * @return its payload
         * @throws DsaException naming the file when neither is there, or the one there is torn or damaged
         */
        public byte[] nodePayload(int node) {
            String own = nodeFile(node);
            boolean buddyOnly = !Files.exists(dir.resolve(own)) && manifest.files().stream().anyMatch(f -> f.name().equals(buddyFile(node)));
            return read(dir, manifest, buddyOnly ? buddyFile(node) : own);
        }
    }

    /** @return why checkpoints every {@code every} global barriers are refused for program {@code className} */
    public static String notResumable(String className, long every) {
        return "program " + className + " is not resumable(), so it cannot take checkpoints (every " + every
                + " global barriers): only a program whose work() can be re-entered at worker.epoch() > 0 can restart from one";
    }

    /** @return node {@code node}'s file name, {@code node-<k>.snap} */
    public static String nodeFile(int node) { return "node-" + node + ".snap"; }

    /** @return the name of the copy of node {@code node}'s file that its buddy keeps on another host, {@code buddy-<k>.snap} */
    public static String buddyFile(int node) { return "buddy-" + node + ".snap"; }

    /** @return the directory of the checkpoint at {@code epoch} in {@code dir} */
    public static Path epochDir(Path dir, long epoch) { return dir.resolve("epoch-" + epoch); }

    static boolean isFileName(String name) { return FILE_NAME.matcher(name).matches(); }

    /**
     * Makes an empty directory for the checkpoint at {@code epoch}: one left from a run that did not
     * finish it (a restart reaches the epoch again) is removed first.
     *
     * @throws DsaException naming the directory if it cannot be made
     */
    public static Path prepare(Path dir, long epoch) { return prepare(dir, epoch, true); }

    /**
     * {@link #prepare(Path, long)}, the new directory's name forced to disk only with {@code sync}.
     *
     * @throws DsaException naming the directory if it cannot be made
     */
    public static Path prepare(Path dir, long epoch, boolean sync) {
        Path e = epochDir(dir, epoch);
        try {
            deleteTree(e);
            Files.createDirectories(e);
            if (sync) forceDirectory(dir);
            return e;
        } catch (IOException ex) {
            throw new DsaException("cannot make checkpoint directory " + e + ": " + ex, ex);
        }
    }

    /**
     * Writes {@code payload} as file {@code name} of the checkpoint at {@code epoch} in
     * {@code epochDir}: to a temporary file, forced, renamed, and the directory forced.
     *
     * @param node the node the file belongs to ({@link #MONITOR_NODE} for the monitor's)
     * @return its manifest entry
     * @throws DsaException naming the file if it cannot be written
     */
    public static CheckpointManifest.FileEntry write(Path epochDir, String name, long epoch, int node, byte[] payload) {
        return write(epochDir, entry(name, payload), epoch, node, payload);
    }

    /**
     * {@link #write(Path, String, long, int, byte[])} of a payload whose entry {@link #entry} made (its CRC32C is not
     * computed again).
     */
    public static CheckpointManifest.FileEntry write(Path epochDir, CheckpointManifest.FileEntry entry, long epoch, int node,
            byte[] payload) {
        return write(epochDir, entry, epoch, node, payload, true);
    }

    /**
     * {@link #write(Path, CheckpointManifest.FileEntry, long, int, byte[])}, the file forced to disk before its rename only
     * with {@code sync}.
     */
    public static CheckpointManifest.FileEntry write(Path epochDir, CheckpointManifest.FileEntry entry, long epoch, int node,
            byte[] payload, boolean sync) {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        header.putInt(MAGIC).putShort((short) CheckpointManifest.VERSION).putShort((short) 0).putLong(epoch).putInt(node)
                .putInt(payload.length).putInt(entry.crc32c()).flip();
        writeAtomically(epochDir.resolve(entry.name()), sync, false, header, ByteBuffer.wrap(payload));
        return entry;
    }

    /** @return the manifest entry file {@code name} will have once {@code payload} is written to it: its size and CRC32C */
    public static CheckpointManifest.FileEntry entry(String name, byte[] payload) {
        CRC32C c = new CRC32C();
        c.update(payload);
        return new CheckpointManifest.FileEntry(name, HEADER_BYTES + (long) payload.length, (int) c.getValue());
    }

    /**
     * Writes the manifest last: from then on the checkpoint is complete. Then removes every
     * checkpoint older than the {@value #KEEP} newest complete ones.
     *
     * @throws DsaException naming the file if it cannot be written
     */
    public static void commit(Path dir, CheckpointManifest manifest) { commit(dir, manifest, true); }

    /**
     * {@link #commit(Path, CheckpointManifest)}; with {@code sync} the epoch's directory is forced before the
     * manifest is written (every node's rename is durable before the manifest names its file), and the
     * manifest and its rename after.
     *
     * @throws DsaException naming the file if it cannot be written
     */
    public static void commit(Path dir, CheckpointManifest manifest, boolean sync) {
        Path e = epochDir(dir, manifest.epoch());
        if (sync) forceDirectory(e);
        writeAtomically(e.resolve(MANIFEST), sync, sync, ByteBuffer.wrap(manifest.encode().getBytes(StandardCharsets.UTF_8)));
        retain(dir, KEEP);
    }

    /** @return whether the checkpoint of {@code epoch} in {@code dir} is complete: its manifest, written last, exists */
    public static boolean isComplete(Path dir, long epoch) { return Files.exists(epochDir(dir, epoch).resolve(MANIFEST)); }

    /** @return whether {@code dir} holds a complete checkpoint (a launcher or test waiting for the first one asks) */
    public static boolean anyComplete(Path dir) { return epochs(dir).stream().anyMatch(e -> isComplete(dir, e)); }

    /**
     * Removes every checkpoint directory, complete or not, older than the {@code keep} newest
     * complete ones (complete: a manifest exists). Directories newer than those are left alone.
     */
    static void retain(Path dir, int keep) {
        List<Long> epochs = epochs(dir);
        List<Long> complete = new ArrayList<>();
        for (long e : epochs) if (isComplete(dir, e)) complete.add(e);
        if (complete.size() < keep) return;
        long oldestKept = complete.get(keep - 1);
        for (long e : epochs) {
            if (e < oldestKept) {
                try {
                    deleteTree(epochDir(dir, e));
                } catch (IOException ex) {
                    // a left-over directory costs disk space only; the next checkpoint tries again
                }
            }
        }
    }

    /**
     * The newest complete checkpoint in {@code dir} whose manifest and files all verify. A damaged
     * or incomplete one is refused (its reason, naming the file, goes to {@code refused}) and the
     * one before it is tried.
     *
     * @return the checkpoint, or null if there is none
     */
    public static Checkpoint newest(Path dir, Consumer<String> refused) {
        for (long e : epochs(dir)) {
            Path d = epochDir(dir, e);
            try {
                CheckpointManifest m = manifest(d);
                if (m.epoch() != e) throw new DsaException(d.resolve(MANIFEST) + ": epoch " + m.epoch() + " in directory " + d.getFileName());
                for (CheckpointManifest.FileEntry f : m.files()) read(d, m, f.name());
                return new Checkpoint(d, m);
            } catch (DsaException ex) {
                refused.accept("checkpoint " + d + " refused: " + ex.getMessage());
            }
        }
        return null;
    }

    /**
     * The checkpoint at {@code epoch} in {@code dir} as one host of a VM on hosts sees it: its
     * manifest lists every node's file and buddy copy, of which this host holds some. Verifies the
     * manifest, node {@code node}'s snapshot (its own file or the buddy copy) and, for node 0, the
     * monitor's file.
     *
     * @throws DsaException naming the directory or file that is missing, incomplete or damaged
     */
    public static Checkpoint forNode(Path dir, long epoch, int node) {
        Path d = epochDir(dir, epoch);
        CheckpointManifest m = manifest(d);
        if (m.epoch() != epoch) throw new DsaException(d.resolve(MANIFEST) + ": epoch " + m.epoch() + " in directory " + d.getFileName());
        Checkpoint cp = new Checkpoint(d, m);
        cp.nodePayload(node);
        if (node == 0) cp.payload(MONITOR_FILE);
        return cp;
    }

    /** @return the epochs of every checkpoint directory in {@code dir}, newest first (complete or not) */
    public static List<Long> epochs(Path dir) {
        List<Long> epochs = new ArrayList<>();
        if (!Files.isDirectory(dir)) return epochs;
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                Matcher m = EPOCH_DIR.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p)) epochs.add(Long.parseLong(m.group(1)));
            }
        } catch (IOException e) {
            throw new DsaException("cannot list checkpoint directory " + dir + ": " + e, e);
        }
        epochs.sort(Comparator.reverseOrder());
        return epochs;
    }

    /**
     * @return the manifest of the checkpoint in {@code epochDir}
     * @throws DsaException naming the file if it is missing or not valid
     */
    public static CheckpointManifest manifest(Path epochDir) {
        Path f = epochDir.resolve(MANIFEST);
        try {
            return CheckpointManifest.parse(Files.readString(f, StandardCharsets.UTF_8), f.toString());
        } catch (NoSuchFileException e) {
            throw new DsaException(f + " is missing: the checkpoint is incomplete");
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new DsaException("cannot read " + f + ": " + e, e);
        }
    }

    // Reads file `name` of the checkpoint in `epochDir`, checked against its header and the manifest's entry.
    static byte[] read(Path epochDir, CheckpointManifest m, String name) {
        Path f = epochDir.resolve(name);
        CheckpointManifest.FileEntry entry = m.files().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new DsaException(epochDir.resolve(MANIFEST) + " lists no file " + name));
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            throw new DsaException(f + " is missing");
        } catch (IOException e) {
            throw new DsaException("cannot read " + f + ": " + e, e);
        }
        if (bytes.length != entry.bytes()) {
            throw new DsaException(f + " has " + bytes.length + " bytes, the manifest says " + entry.bytes());
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int magic = b.getInt();
        int version = b.getShort() & 0xFFFF;
        b.getShort();
        long epoch = b.getLong();
        b.getInt();
        int length = b.getInt();
        int crc = b.getInt();
        if (magic != MAGIC) throw new DsaException(f + " is not a checkpoint file (magic " + Integer.toHexString(magic) + ")");
        if (version != CheckpointManifest.VERSION) {
            throw new DsaException(f + " has version " + version + "; this code reads version " + CheckpointManifest.VERSION);
        }
        if (epoch != m.epoch() || length != bytes.length - HEADER_BYTES) {
            throw new DsaException(f + ": header says epoch " + epoch + " and " + length + " bytes, expected epoch " + m.epoch()
                    + " and " + (bytes.length - HEADER_BYTES));
        }
        CRC32C c = new CRC32C();
        c.update(bytes, HEADER_BYTES, length);
        int actual = (int) c.getValue();
        if (actual != crc || crc != entry.crc32c()) {
            throw new DsaException(f + ": checksum mismatch (CRC32C of the content " + CheckpointManifest.hex(actual) + ", header "
                    + CheckpointManifest.hex(crc) + ", manifest " + CheckpointManifest.hex(entry.crc32c()) + ")");
        }
        byte[] payload = new byte[length];
        System.arraycopy(bytes, HEADER_BYTES, payload, 0, length);
        return payload;
    }

    // Writes a temporary file and renames it to `target`; with `sync` the file is forced before the rename, and with
    // `durable` the directory after it.
    private static void writeAtomically(Path target, boolean sync, boolean durable, ByteBuffer... parts) {
        // A name of its own: two nodes on one host with one directory both write its manifest.
        Path tmp = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + "-" + TEMP_FILES.incrementAndGet() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                for (ByteBuffer p : parts) while (p.hasRemaining()) ch.write(p);
                if (sync) ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            if (durable) forceDirectory(target.getParent());
        } catch (IOException e) {
            throw new DsaException("cannot write checkpoint file " + target + ": " + e, e);
        }
    }

    // Makes a rename in `dir` durable. Some file systems refuse to open a directory: the rename stands, unforced.
    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not supported here (e.g. some platforms): the rename is still atomic
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        if (Files.isDirectory(p)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(p)) {
                for (Path c : s) deleteTree(c);
            }
        }
        Files.deleteIfExists(p);
    }
}
