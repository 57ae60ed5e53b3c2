package io.dsa.agent;

import io.dsa.DsaException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state of one agent as it travels in a live migration or a clone: an explicit, versioned
 * binary format (no Java serialization). Taken at a safe point (every worker of the VM waiting at
 * a plain global barrier, no coherence transaction under way), so it holds no in-flight requests.
 *
 * <pre>
 *  0        4        6        8
 *  +--------+--------+--------+------------------------------------------------------------+
 *  | "DSAS" | version| flags  | body (version 1, big-endian)                               |
 *  +--------+--------+--------+------------------------------------------------------------+
 *  body: nodeId i32, vmName str, epoch i64, nodes i32, threadsPerNode i32,
 *        view: count i32, address str...
 *        arrays: count i32, { id i32, name str, params: count i32, i64..., partitions: count i32,
 *                 { partition i32, role u8 (0 home, 1 cache), state u8, owner i32,
 *                   sharers: count i32, i32..., data: length i32 (-1: no data), bytes } }
 *        variables: count i32, { id i32, bits i64 }
 *        barriers: global generation i64, global completed i64, tree generation i64,
 *                  central generation i64, local generation i64, groups: count i32, { id i32, completed i64 }
 *  str = length i32 + UTF-8 bytes
 * </pre>
 *
 * A state of another version is refused naming the version found and the supported ones.
 *
 * @param nodeId the node id the state belongs to (a clone's state carries the clone's new id)
 * @param vmName the virtual machine's name
 * @param epoch global barriers the node's workers have passed at the safe point (they resume here)
 * @param nodes nodes in the VM's view
 * @param threadsPerNode workers per node
 * @param view address ({@code host:port}) of every node, by node id
 * @param arrays the node's partitions: homed ones with their directory entries, cached copies
 * @param variables shared variables homed at the node
 * @param barriers the node's barrier counters
 */
public record AgentState(int nodeId, String vmName, long epoch, int nodes, int threadsPerNode, List<String> view,
        List<ArrayImage> arrays, List<VariableImage> variables, BarrierImage barriers) {
    /** "DSAS" */
    public static final int MAGIC = 0x44534153;
    /** The version this code writes. */
    public static final int VERSION = 1;
    /** The versions this code reads. */
    public static final List<Integer> SUPPORTED_VERSIONS = List.of(VERSION);
    /** Partition role: homed at the node (directory entry and home copy). */
    public static final int ROLE_HOME = 0;
    /** Partition role: a cached copy of a partition homed elsewhere. */
    public static final int ROLE_CACHE = 1;

    /** Copies the lists. */
    public AgentState {
        view = List.copyOf(view);
        arrays = List.copyOf(arrays);
        variables = List.copyOf(variables);
    }

    /**
     * One array as the node holds it.
     *
     * @param id the array's id in the VM's registry
     * @param name its name
     * @param params its shape as registered (rows, cols, partition shape, distribution, element type)
     * @param partitions the partitions the node has an entry for
     */
    public record ArrayImage(int id, String name, long[] params, List<PartitionImage> partitions) {
        /** Copies the list. */
        public ArrayImage { partitions = List.copyOf(partitions); }
    }

    /**
     * One partition's entry and data at the node.
     *
     * @param partition the partition index
     * @param role {@link #ROLE_HOME} or {@link #ROLE_CACHE}
     * @param state for a home, the {@code DirectoryState} ordinal; for a cache, the {@code CacheState} ordinal
     * @param owner a home's exclusive owner, or -1
     * @param sharers a home's sharers, ascending
     * @param data the node's copy when it is valid, else null
     */
    public record PartitionImage(int partition, int role, int state, int owner, int[] sharers, byte[] data) {}

    /**
     * A shared variable homed at the node.
     *
     * @param id the variable's id
     * @param bits its value's bits
     */
    public record VariableImage(int id, long bits) {}

    /**
     * The node's barrier counters.
     *
     * @param globalGeneration global barrier arrivals counted at the node
     * @param globalCompleted global barrier releases seen
     * @param treeGeneration the k-ary combining generation
     * @param centralGeneration the central barrier generation (node 0 only)
     * @param localGeneration the node-local barrier generation
     * @param groupsCompleted releases seen per group barrier id
     */
    public record BarrierImage(long globalGeneration, long globalCompleted, long treeGeneration, long centralGeneration,
            long localGeneration, Map<Integer, Long> groupsCompleted) {
        /** Copies the map (sorted by id, so encodings are deterministic). */
        public BarrierImage { groupsCompleted = new TreeMap<>(groupsCompleted); }
    }

    /** @return the bytes of every partition copy this state carries */
    public long dataBytes() {
        long n = 0;
        for (ArrayImage a : arrays) for (PartitionImage p : a.partitions) if (p.data != null) n += p.data.length;
        return n;
    }

    /** @return this state in the binary format, version {@link #VERSION} */
    public byte[] encode() {
        int size = 8 + 4 + str(vmName) + 8 + 4 + 4 + 4;
        for (String v : view) size += str(v);
        size += 4;
        for (ArrayImage a : arrays) {
            size += 4 + str(a.name) + 4 + 8 * a.params.length + 4;
            for (PartitionImage p : a.partitions) size += 4 + 1 + 1 + 4 + 4 + 4 * p.sharers.length + 4 + (p.data == null ? 0 : p.data.length);
        }
        size += 4 + 12 * variables.size();
        size += 5 * 8 + 4 + 12 * barriers.groupsCompleted.size();
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0);
        b.putInt(nodeId);
        putStr(b, vmName);
        b.putLong(epoch).putInt(nodes).putInt(threadsPerNode);
        b.putInt(view.size());
        for (String v : view) putStr(b, v);
        b.putInt(arrays.size());
        for (ArrayImage a : arrays) {
            b.putInt(a.id);
            putStr(b, a.name);
            b.putInt(a.params.length);
            for (long p : a.params) b.putLong(p);
            b.putInt(a.partitions.size());
            for (PartitionImage p : a.partitions) {
                b.putInt(p.partition).put((byte) p.role).put((byte) p.state).putInt(p.owner);
                b.putInt(p.sharers.length);
                for (int s : p.sharers) b.putInt(s);
                if (p.data == null) {
                    b.putInt(-1);
                } else {
                    b.putInt(p.data.length).put(p.data);
                }
            }
        }
        b.putInt(variables.size());
        for (VariableImage v : variables) b.putInt(v.id).putLong(v.bits);
        BarrierImage r = barriers;
        b.putLong(r.globalGeneration).putLong(r.globalCompleted).putLong(r.treeGeneration).putLong(r.centralGeneration)
                .putLong(r.localGeneration);
        b.putInt(r.groupsCompleted.size());
        for (Map.Entry<Integer, Long> g : r.groupsCompleted.entrySet()) b.putInt(g.getKey()).putLong(g.getValue());
        if (b.hasRemaining()) throw new IllegalStateException("agent state size miscounted: " + b.remaining() + " bytes left");
        return b.array();
    }

    /**
     * Reads a state written by {@link #encode()}.
     *
     * @throws DsaException if the bytes are not an agent state, of an unsupported version,
     *         truncated, or carry a length out of range (the message says which and where)
     */
    public static AgentState decode(byte[] bytes) {
        if (bytes == null) throw new DsaException("no agent state: the bytes are missing");
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            int magic = b.getInt();
            if (magic != MAGIC) {
                throw new DsaException(String.format("not an agent state: magic 0x%08x, expected 0x%08x (\"DSAS\")", magic, MAGIC));
            }
            int version = Short.toUnsignedInt(b.getShort());
            if (!SUPPORTED_VERSIONS.contains(version)) {
                throw new DsaException("agent state version " + version + " is not supported; this agent reads versions "
                        + SUPPORTED_VERSIONS);
            }
            b.getShort(); // flags, none defined in version 1
            int nodeId = b.getInt();
            String vmName = getStr(b);
            long epoch = b.getLong();
            int nodes = b.getInt();
            int threads = b.getInt();
            int nView = count(b, "view", 4);
            List<String> view = new ArrayList<>(nView);
            for (int i = 0; i < nView; i++) view.add(getStr(b));
            int nArrays = count(b, "arrays", 16);
            List<ArrayImage> arrays = new ArrayList<>(nArrays);
            for (int i = 0; i < nArrays; i++) {
                int id = b.getInt();
                String name = getStr(b);
                long[] params = new long[count(b, "array parameters", 8)];
                for (int k = 0; k < params.length; k++) params[k] = b.getLong();
                int nParts = count(b, "partitions", 18);
                List<PartitionImage> parts = new ArrayList<>(nParts);
                for (int k = 0; k < nParts; k++) {
                    int partition = b.getInt();
                    int role = b.get();
                    int state = b.get();
                    int owner = b.getInt();
                    if (role != ROLE_HOME && role != ROLE_CACHE || state < 0 || state > 2) {
                        throw new DsaException("agent state: partition " + partition + " of array '" + name + "' has role " + role
                                + " (expected 0 or 1) and state " + state + " (expected 0..2)");
                    }
                    int[] sharers = new int[count(b, "sharers", 4)];
                    for (int s = 0; s < sharers.length; s++) sharers[s] = b.getInt();
                    int length = b.getInt();
                    byte[] data = null;
                    if (length != -1) {
                        if (length < 0 || length > b.remaining()) {
                            throw new DsaException("agent state: partition " + partition + " of array '" + name + "' claims "
                                    + length + " data bytes at offset " + (b.position() - 4) + ", only " + b.remaining() + " left");
                        }
                        data = new byte[length];
                        b.get(data);
                    }
                    parts.add(new PartitionImage(partition, role, state, owner, sharers, data));
                }
                arrays.add(new ArrayImage(id, name, params, parts));
            }
            int nVars = count(b, "variables", 12);
            List<VariableImage> vars = new ArrayList<>(nVars);
            for (int i = 0; i < nVars; i++) vars.add(new VariableImage(b.getInt(), b.getLong()));
            long gg = b.getLong();
            long gc = b.getLong();
            long tg = b.getLong();
            long cg = b.getLong();
            long lg = b.getLong();
            int nGroups = count(b, "group barriers", 12);
            Map<Integer, Long> groups = new TreeMap<>();
            for (int i = 0; i < nGroups; i++) groups.put(b.getInt(), b.getLong());
            if (b.hasRemaining()) {
                throw new DsaException("agent state has " + b.remaining() + " trailing bytes after offset " + b.position());
            }
            return new AgentState(nodeId, vmName, epoch, nodes, threads, view, arrays, vars,
                    new BarrierImage(gg, gc, tg, cg, lg, groups));
        } catch (BufferUnderflowException e) {
            throw new DsaException("agent state truncated: " + bytes.length + " bytes end inside the field at offset " + b.position());
        }
    }

    private static int count(ByteBuffer b, String what, int minBytesEach) {
        int at = b.position();
        int n = b.getInt();
        if (n < 0 || (long) n * minBytesEach > b.remaining()) {
            throw new DsaException("agent state: count of " + what + " " + n + " at offset " + at + " out of range [0, "
                    + b.remaining() / minBytesEach + "] for the " + b.remaining() + " bytes left");
        }
        return n;
    }

    private static int str(String s) { return 4 + s.getBytes(StandardCharsets.UTF_8).length; }

    private static void putStr(ByteBuffer b, String s) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(u.length).put(u);
    }

    private static String getStr(ByteBuffer b) {
        int at = b.position();
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new DsaException("agent state: string length " + n + " at offset " + at + " out of range [0, " + b.remaining() + "]");
        }
        byte[] u = new byte[n];
        b.get(u);
        return new String(u, StandardCharsets.UTF_8);
    }
}
