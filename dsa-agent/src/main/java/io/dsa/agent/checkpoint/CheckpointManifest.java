package io.dsa.agent.checkpoint;

import io.dsa.DsaException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What a complete checkpoint holds, written last by node 0 into {@code epoch-<E>/manifest} once
 * every node's file is on disk: the epoch, the VM's shape, the program and its arguments (a
 * restart runs the same), and every file with its size and CRC32C. A text file, one field per
 * line, ending with the CRC32C of the lines before it, so a torn or edited manifest is refused:
 *
 * <pre>
 * dsa-checkpoint 1
 * epoch 300
 * vm dsa
 * nodes 4
 * threads 2
 * every 100
 * program io.dsa.examples.Jacobi
 * arg 1024                     (one line per argument, URL-encoded)
 * file node-0.snap 2101336 0a1b2c3d
 * ...
 * file monitor.snap 212 1f2e3d4c
 * clone 2 5 2101336 0a1b2c3d 127.0.0.4:7070   (node, clone id, bytes, CRC32C, the clone's host; none or more)
 * crc32c 5e6f7a8b
 * </pre>
 *
 * <p>A {@code clone} line says that clone 5 of node 2 acknowledged a copy of node 2's payload,
 * which it keeps in memory: it is current at this epoch, and may take node 2's place at a restart
 * from it (docs/failures.md, "Clone promotion"). A clone's copy is no file: a restart from the
 * directory ignores these lines.
 *
 * @param epoch the global barriers the workers had passed: they resume at this epoch
 * @param vmName the VM's name
 * @param nodes nodes in the VM
 * @param threadsPerNode workers per node
 * @param every the checkpoint interval in global barriers the run used
 * @param program the program's class name
 * @param args the program's arguments
 * @param files every file of the checkpoint
 * @param clones the clones that acknowledged a copy of their node's payload, in memory (none without clones)
 */
public record CheckpointManifest(long epoch, String vmName, int nodes, int threadsPerNode, long every, String program,
        List<String> args, List<FileEntry> files, List<CloneCopy> clones) {
    /** The version of the manifest (and of the file headers) this code writes and reads. */
    public static final int VERSION = 1;
    /** The manifest's first line without the version. */
    static final String HEADER = "dsa-checkpoint";

    /** Copies the lists. */
    public CheckpointManifest {
        args = List.copyOf(args);
        files = List.copyOf(files);
        clones = List.copyOf(clones);
    }

    /** A manifest without clone copies. */
    public CheckpointManifest(long epoch, String vmName, int nodes, int threadsPerNode, long every, String program, List<String> args,
            List<FileEntry> files) {
        this(epoch, vmName, nodes, threadsPerNode, every, program, args, files, List.of());
    }

    /**
     * A copy of a node's payload that one of its clones keeps in memory and acknowledged.
     *
     * @param node the node copied, in {@code [1, nodes)}
     * @param cloneId the clone's id ({@code >= nodes})
     * @param bytes the payload's size in bytes
     * @param crc32c the payload's CRC32C
     * @param host the control address ({@code HOST:PORT}) of the host running the clone; empty if none
     */
    public record CloneCopy(int node, int cloneId, long bytes, int crc32c, String host) {}

    /** @return the clone of {@code node} that keeps a copy at this epoch on a host among {@code usable}, or null */
    public CloneCopy cloneOf(int node, java.util.function.Predicate<String> usable) {
        for (CloneCopy c : clones) if (c.node() == node && usable.test(c.host())) return c;
        return null;
    }

    /**
     * One file of a checkpoint.
     *
     * @param name its name in the epoch's directory, e.g. {@code node-2.snap}
     * @param bytes its size in bytes
     * @param crc32c the CRC32C of its payload (as its header also says)
     */
    public record FileEntry(String name, long bytes, int crc32c) {}

    /** @return the manifest's text */
    public String encode() {
        StringBuilder b = new StringBuilder();
        b.append(HEADER).append(' ').append(VERSION).append('\n');
        b.append("epoch ").append(epoch).append('\n');
        b.append("vm ").append(vmName).append('\n');
        b.append("nodes ").append(nodes).append('\n');
        b.append("threads ").append(threadsPerNode).append('\n');
        b.append("every ").append(every).append('\n');
        b.append("program ").append(program).append('\n');
        for (String a : args) b.append("arg ").append(URLEncoder.encode(a, StandardCharsets.UTF_8)).append('\n');
        for (FileEntry f : files) {
            b.append("file ").append(f.name()).append(' ').append(f.bytes()).append(' ').append(hex(f.crc32c())).append('\n');
        }
        for (CloneCopy c : clones) {
            b.append("clone ").append(c.node()).append(' ').append(c.cloneId()).append(' ').append(c.bytes()).append(' ')
                    .append(hex(c.crc32c())).append(' ').append(c.host().isEmpty() ? "-" : c.host()).append('\n');
        }
        String sum = hex(crc(b.toString()));   // of the lines before the checksum line
        b.append("crc32c ").append(sum).append('\n');
        return b.toString();
    }

    /**
     * Parses a manifest's text.
     *
     * @param where the file, for messages
     * @throws DsaException naming the file and the line that is wrong, or the checksum that does not match
     */
    public static CheckpointManifest parse(String text, String where) {
        int last = text.lastIndexOf("crc32c ");
        if (last < 0 || !text.endsWith("\n")) throw new DsaException(where + ": no checksum line at the end (torn or not a manifest)");
        String body = text.substring(0, last);
        String sum = text.substring(last + "crc32c ".length()).strip();
        if (!sum.equals(hex(crc(body)))) {
            throw new DsaException(where + ": checksum " + sum + " does not match its content (CRC32C " + hex(crc(body)) + ")");
        }
        long epoch = -1;
        String vm = null;
        int nodes = 0;
        int threads = 0;
        long every = 0;
        String program = null;
        List<String> args = new ArrayList<>();
        List<FileEntry> files = new ArrayList<>();
        List<CloneCopy> clones = new ArrayList<>();
        String[] lines = body.split("\n");
        if (lines.length == 0 || !lines[0].equals(HEADER + " " + VERSION)) {
            throw new DsaException(where + ": first line '" + (lines.length == 0 ? "" : lines[0]) + "', expected '" + HEADER + " "
                    + VERSION + "'");
        }
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int sp = line.indexOf(' ');
            String key = sp < 0 ? line : line.substring(0, sp);
            String value = sp < 0 ? "" : line.substring(sp + 1);
            try {
                switch (key) {
                    case "epoch" -> epoch = Long.parseLong(value);
                    case "vm" -> vm = value;
                    case "nodes" -> nodes = Integer.parseInt(value);
                    case "threads" -> threads = Integer.parseInt(value);
                    case "every" -> every = Long.parseLong(value);
                    case "program" -> program = value;
                    case "arg" -> args.add(URLDecoder.decode(value, StandardCharsets.UTF_8));
                    case "file" -> {
                        String[] f = value.split(" ");
                        if (f.length != 3 || !CheckpointStore.isFileName(f[0])) throw new IllegalArgumentException("file entry");
                        files.add(new FileEntry(f[0], Long.parseLong(f[1]), Integer.parseUnsignedInt(f[2], 16)));
                    }
                    case "clone" -> {
                        String[] f = value.split(" ");
                        if (f.length != 5) throw new IllegalArgumentException("clone entry");
                        clones.add(new CloneCopy(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Long.parseLong(f[2]),
                                Integer.parseUnsignedInt(f[3], 16), f[4].equals("-") ? "" : f[4]));
                    }
                    default -> throw new IllegalArgumentException("unknown field");
                }
            } catch (IllegalArgumentException e) {
                throw new DsaException(where + ": line " + (i + 1) + " '" + line + "' is not valid (" + e.getMessage() + ")");
            }
        }
        if (epoch < 1 || vm == null || nodes < 1 || threads < 1 || program == null || (files.size() != nodes + 1 && files.size() != 2 * nodes + 1)) {
            throw new DsaException(where + ": incomplete (epoch " + epoch + ", vm " + vm + ", " + nodes + " nodes x " + threads
                    + " threads, program " + program + ", " + files.size() + " files, expected nodes + 1, or 2 x nodes + 1 with buddy copies)");
        }
        for (CloneCopy c : clones) {
            if (c.node() < 1 || c.node() >= nodes || c.cloneId() < nodes) {
                throw new DsaException(where + ": clone " + c.cloneId() + " of node " + c.node() + " out of range (node in [1, " + nodes
                        + "), clone id >= " + nodes + ")");
            }
        }
        return new CheckpointManifest(epoch, vm, nodes, threads, every, program, args, files, clones);
    }

    static int crc(String text) {
        CRC32C c = new CRC32C();
        c.update(text.getBytes(StandardCharsets.UTF_8));
        return (int) c.getValue();
    }

    static String hex(int value) { return HexFormat.of().toHexDigits(value); }
}
