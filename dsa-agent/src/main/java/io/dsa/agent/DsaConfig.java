package io.dsa.agent;

import java.nio.file.Path;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;


/**
 * Configuration of a virtual machine, or of one agent of it. Immutable; build with
 * {@link #builder()}, whose {@link Builder#build()} validates every field.
 *
 * <p>The cluster secret authenticates every connection. It comes from a file
 * ({@link Builder#secretFile(Path)}), the environment variable {@value #SECRET_ENV}, or, for a
 * VM inside one JVM, a random one ({@link Builder#randomSecret()}). It is never a command-line
 * argument. A config may be built without one for {@link DsaCluster#local}, which then makes a
 * random one; {@link DsaAgent#start} refuses to start without one.
 *
 * <p>After the handshake every connection is sealed record by record, encrypted by default
 * ({@link Builder#transportSecurity(TransportSecurity)}); docs/security.md has the threat model.
 */
public final class DsaConfig {
    /** Environment variable holding the cluster secret. */
    public static final String SECRET_ENV = "DSA_SECRET";
    /** Default VM name. */
    public static final String DEFAULT_VM = "dsa";
    /** Default bind address: loopback. */
    public static final String DEFAULT_BIND_HOST = "127.0.0.1";
    /** Largest frame accepted by default: 64 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 64 << 20;
    /** Smallest value of {@link Builder#maxFrameBytes(int)}: 4 KiB. */
    public static final int MIN_MAX_FRAME_BYTES = 4096;
    /** Largest value of {@link Builder#maxFrameBytes(int)}: 1 GiB. */
    public static final int MAX_MAX_FRAME_BYTES = 1 << 30;
    /** Default limit on waiting for the VM to form. */
    public static final long DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
    /** Default children per node of a k-ary barrier tree. */
    public static final int DEFAULT_BARRIER_FANOUT = 4;
    /** What a VM name may be: 1 to 64 letters, digits, '.', '_' or '-' (it names files and log lines). */
    public static final String VM_NAME_PATTERN = "[A-Za-z0-9._-]{1,64}";
    /** Largest number of nodes. */
    public static final int MAX_NODES = 1024;
    /** Largest number of worker threads per node. */
    public static final int MAX_THREADS_PER_NODE = 1024;
    /** Default prefetch window: partitions requested ahead of a sequential {@code readPartition} loop. */
    public static final int DEFAULT_PREFETCH_WINDOW = 4;
    /** Largest prefetch window. */
    public static final int MAX_PREFETCH_WINDOW = 256;
    /**
     * Default failure timeout, in milliseconds: a node silent this long on any connection (dead,
     * hung, stopped, or cut off without a reset) is lost, and the job fails naming it.
     */
    public static final long DEFAULT_FAILURE_TIMEOUT_MS = TransportConfig.DEFAULT_FAILURE_TIMEOUT_MS;
    /** Smallest failure timeout accepted, in milliseconds. */
    public static final long MIN_FAILURE_TIMEOUT_MS = TransportConfig.MIN_FAILURE_TIMEOUT_MS;
    /** Largest failure timeout accepted, in milliseconds: one hour. */
    public static final long MAX_FAILURE_TIMEOUT_MS = TransportConfig.MAX_FAILURE_TIMEOUT_MS;

    /** Largest {@link Builder#machineThreads} hint. */
    public static final int MAX_MACHINE_THREADS = 1 << 20;

    /** Largest checkpoint interval, in global barriers. */
    public static final long MAX_CHECKPOINT_EVERY = 1L << 30;

    /** The config's values: a private copy of the builder's, never changed after construction. */
    private final Builder v;

    private DsaConfig(Builder b) { this.v = b.copy(); }

    /** @return a builder with the defaults: 1 node, 1 thread, VM {@value #DEFAULT_VM}, loopback */
    public static Builder builder() { return new Builder(); }

    /** @return a builder holding this config's values */
    public Builder toBuilder() { return v.copy(); }

    /** @return nodes in the VM */
    public int nodes() { return v.nodes; }

    /** @return worker threads per node */
    public int threadsPerNode() { return v.threadsPerNode; }

    /** @return the VM's name; connections between different VMs are refused */
    public String vmName() { return v.vmName; }

    /** @return whether a secret was given ({@link DsaCluster#local} makes one when not) */
    public boolean hasSecret() { return v.secret.length > 0; }

    /** @return a copy of the cluster secret */
    public byte[] secret() { return v.secret.clone(); }

    /** @return the address agents bind to */
    public String bindHost() { return v.bindHost; }

    /** @return the port an agent binds to; 0 picks a free one */
    public int port() { return v.port; }

    /** @return this agent's node id (used by {@link DsaAgent#start(DsaConfig)}) */
    public int nodeId() { return v.nodeId; }

    /** @return {@code host:port} of node 0's agent (the monitor), or null for node 0 itself */
    public String monitorAddress() { return v.monitorAddress; }

    /** @return the largest frame accepted from a peer; larger messages (big partitions) travel in chunks of at most this */
    public int maxFrameBytes() { return v.maxFrameBytes; }

    /** @return how long to wait for the VM to form */
    public long startupTimeoutMs() { return v.startupTimeoutMs; }

    /**
     * @return how long a node may be silent on a connection before it is taken for lost and the job
     *         fails naming it, in milliseconds; each connection heartbeats after a third of it idle;
     *         default {@value #DEFAULT_FAILURE_TIMEOUT_MS}
     */
    public long failureTimeoutMs() { return v.failureTimeoutMs; }

    /** @return how the global barrier travels; default {@link BarrierKind#TREE} */
    public BarrierKind barrier() { return v.barrier; }

    /** @return children per node in a {@link BarrierKind#KARY} barrier tree; default {@value #DEFAULT_BARRIER_FANOUT} */
    public int barrierFanout() { return v.barrierFanout; }

    /** @return who sends a node's barrier messages; default {@link ProxyMode#FLOAT} */
    public ProxyMode proxy() { return v.proxy; }

    /** @return how the node's threads wait for the network; default {@link WaitStrategy#ADAPTIVE} */
    public WaitStrategy waitStrategy() { return v.waitStrategy; }

    /**
     * @return whether a {@link BarrierKind#TREE} global barrier with the {@link ProxyMode#FLOAT} proxy
     *         travels over barrier lanes between node 0 and the nodes on its machine: Unix-domain
     *         sockets that the workers write and read themselves, without a hand-off to an I/O thread
     *         (docs/runtime.md, "Barrier lanes"); default true. Nodes on other machines use their
     *         connections either way.
     */
    public boolean barrierLanes() { return v.barrierLanes; }

    /**
     * @return whether the connections between nodes of one machine move the bodies of large messages
     *         (partitions, diffs, pushes of 4 KiB and more) through rings in shared memory once they
     *         have sent twice a ring's size on their sockets (docs/runtime.md, "Bulk bytes through
     *         shared memory"); default true. The ring's size is the system property
     *         {@code dsa.sharedRingBytes} (8 MiB; 0 turns the rings off too).
     */
    public boolean sharedRings() { return v.sharedRings; }

    /**
     * @return the node threads (workers and I/O threads, of every node of every VM) that the
     *         launcher runs on this node's machine, which {@link WaitStrategy#ADAPTIVE} compares with
     *         the machine's cores; 0 (the default) counts only the nodes of this JVM
     */
    public int machineThreads() { return v.machineThreads; }

    /**
     * @return partitions a node requests ahead when a thread reads partitions one after another
     *         ({@code readPartition(p)} after {@code readPartition(p - 1)}), so that several transfers
     *         are in flight; 0 turns it off; default {@value #DEFAULT_PREFETCH_WINDOW}
     */
    public int prefetchWindow() { return v.prefetchWindow; }

    /**
     * @return whether a home pushes a partition it invalidated to the nodes that read it again
     *         epoch after epoch, at its next global arrival, so their next read hits
     *         (docs/runtime.md, "Pushes to returning readers"); default false: on the 2-core
     *         development machine it made NPB CG on 4 nodes x 2 threads faster (0.81x the time)
     *         and on 2 x 1 slower (1.17x)
     */
    public boolean readerPushes() { return v.readerPushes; }

    /**
     * @return whether a node drops its shared copy of a partition that its home rewrites epoch
     *         after epoch, at its next global arrival after it read the copy again, telling the
     *         home (self-invalidation), so that the home's next write waits for no invalidation
     *         round trip (docs/runtime.md, "Self-invalidation"); default false
     */
    public boolean selfInvalidation() { return v.selfInvalidation; }

    /**
     * @return whether an element read that misses on a partition this node missed on before (a
     *         returning read), the first such miss after a global barrier or collective, also
     *         requests the other partitions of the array the node missed on before and lacks, so
     *         that they travel together instead of one round trip after another (docs/runtime.md,
     *         "Returning reads"); default true
     */
    public boolean returningReads() { return v.returningReads; }

    /**
     * @return whether the nodes count the hits of element, partition and region accesses (the
     *         {@code readHits} and {@code writeHits} of {@link io.dsa.agent.metrics.ArrayCounts},
     *         {@code dsa status} and the metrics); default true. Misses, invalidations and bytes are
     *         counted either way. Off, a hit skips its counter, an increment in memory on every
     *         access: about a fifth of an element loop's time on a hit (docs/runtime.md, "What a
     *         hit's counter costs"), and hits read 0.
     */
    public boolean hitCounts() { return v.hitCounts; }

    /**
     * @return whether each node binds its workers and its I/O thread to a share of the machine's
     *         cores, as MPI binds its ranks: the cores the JVM may use divided among the VM's
     *         nodes, node {@code k} getting {@code [k c / n, (k + 1) c / n)} of {@code c} cores
     *         for {@code n <= c} nodes, else core {@code k mod c}; Linux, with {@code taskset}
     *         (docs/runtime.md, "Binding nodes to cores"); default false. Meant for VMs whose
     *         nodes share one machine ({@code dsa run}, {@link DsaCluster#local}); where the nodes
     *         are spread over machines, the launcher says which share is this node's
     *         ({@link #coreShare()}).
     */
    public boolean bindCores() { return v.bindCores; }

    /**
     * @return this node's share of its machine's cores when {@link #bindCores()}: its index among
     *         the VM's nodes on its machine, in {@code [0, coreShares())}; without
     *         {@link Builder#coreShare} the node id, every node of the VM taken to share one machine
     */
    public int coreShare() { return v.coreShares > 0 ? v.coreShare : v.nodeId; }

    /**
     * @return the shares this node's machine's cores are divided into when {@link #bindCores()}: the
     *         VM's nodes on that machine ({@code dsa run --hosts} counts the nodes each host runs);
     *         without {@link Builder#coreShare} the VM's nodes
     */
    public int coreShares() { return v.coreShares > 0 ? v.coreShares : v.nodes; }

    /** @return how connections are protected after the handshake; default {@link TransportSecurity#ENCRYPT} */
    public TransportSecurity transportSecurity() { return v.transportSecurity; }

    /** @return where the nodes' {@link io.dsa.DsaNode#progress(String)} lines go; default {@link ProgressListener#LOG} */
    public ProgressListener progress() { return v.progress; }

    /**
     * @return global barriers between checkpoints (docs/failures.md, "Checkpoints"): every node
     *         writes its state into {@link #checkpointDir()} at each such global barrier epoch; 0: none
     */
    public long checkpointEvery() { return v.checkpointEvery; }

    /** @return the directory checkpoints go to (one sub-directory per epoch), or null when there are none */
    public Path checkpointDir() { return v.checkpointDir; }

    /**
     * @return whether every checkpoint file is forced to disk ({@code fsync}) before the checkpoint
     *         counts as complete (the default; docs/failures.md, "Forced or not"): then a checkpoint
     *         survives a crash of the operating system or a power loss of every host; without it, the
     *         loss of any node process and of any host whose nodes' buddies' hosts survive
     */
    public boolean checkpointSync() { return v.checkpointSync; }

    /**
     * @return with checkpoints on hosts (docs/failures.md, "Checkpoints on hosts"): element k is the
     *         node that keeps a copy of node k's file on its own host; empty: one directory that every
     *         node sees. (a copy of the array)
     */
    public int[] checkpointBuddies() { return v.checkpointBuddies.clone(); }

    /** @return told on node 0 the epoch of each checkpoint once it is complete (on the checkpoint thread) */
    public java.util.function.LongConsumer checkpointCommitted() { return v.checkpointCommitted; }

    /**
     * @return the control address ({@code HOST:PORT}) of the host whose JVM runs this agent, which a
     *         clone reports with each checkpoint copy it keeps (docs/failures.md, "Clone promotion");
     *         empty when no host runs it
     */
    public String hostAddress() { return v.hostAddress; }

    @Override
    public String toString() {
        return "DsaConfig{vm=" + v.vmName + ", nodes=" + v.nodes + ", threadsPerNode=" + v.threadsPerNode + ", node="
                + v.nodeId + ", bind=" + v.bindHost + ":" + v.port + ", monitor=" + v.monitorAddress + ", barrier=" + v.barrier
                + ", proxy=" + v.proxy + (v.barrierLanes ? "" : ", no barrier lanes") + (v.sharedRings ? "" : ", no shared rings") + ", wait=" + v.waitStrategy + (v.machineThreads > 0 ? " (" + v.machineThreads + " threads on the machine)" : "") + ", prefetchWindow=" + v.prefetchWindow + (v.readerPushes ? ", reader pushes" : "") + (v.selfInvalidation ? ", self-invalidation" : "") + (v.returningReads ? "" : ", no returning reads") + (v.hitCounts ? "" : ", hits not counted") + (v.bindCores ? ", nodes bound to cores" + (v.coreShares > 0 ? " (share " + v.coreShare + " of " + v.coreShares + ")" : "") : "")
                + ", transportSecurity=" + v.transportSecurity + ", failureTimeoutMs=" + v.failureTimeoutMs + "}";
    }

    /** Builds a {@link DsaConfig}. Not thread-safe. */
    public static final class Builder {
        private int nodes = 1;
        private int threadsPerNode = 1;
        private String vmName = DEFAULT_VM;
        private byte[] secret = new byte[0];
        private String bindHost = DEFAULT_BIND_HOST;
        private int port = 0;
        private int nodeId = 0;
        private String monitorAddress;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private long startupTimeoutMs = DEFAULT_STARTUP_TIMEOUT_MS;
        private long failureTimeoutMs = DEFAULT_FAILURE_TIMEOUT_MS;
        private BarrierKind barrier = BarrierKind.TREE;
        private int barrierFanout = DEFAULT_BARRIER_FANOUT;
        private ProxyMode proxy = ProxyMode.FLOAT;
        private boolean barrierLanes = true;
        private boolean sharedRings = true;
        private WaitStrategy waitStrategy = WaitStrategy.ADAPTIVE;
        private int machineThreads;
        private int prefetchWindow = DEFAULT_PREFETCH_WINDOW;
        private boolean readerPushes;
        private boolean selfInvalidation;
        private boolean returningReads = true;
        private boolean hitCounts = true;
        private boolean bindCores;
        private int coreShare;
        private int coreShares = -1;   // not said
        private TransportSecurity transportSecurity = TransportSecurity.ENCRYPT;
        private ProgressListener progress = ProgressListener.LOG;
        private long checkpointEvery;
        private Path checkpointDir;
        private boolean checkpointSync = true;
        private int[] checkpointBuddies = new int[0];
        private java.util.function.LongConsumer checkpointCommitted = epoch -> { };
        private String hostAddress = "";

        private Builder() {}

        /** @param address the control address ({@code HOST:PORT}) of the host that runs this agent; empty (the default): none */
        public Builder hostAddress(String address) {
            this.hostAddress = java.util.Objects.requireNonNull(address, "host address");
            return this;
        }

        /**
         * Checkpoints on hosts, each with a directory of its own (docs/failures.md, "Checkpoints on
         * hosts"): besides its own file, every node's snapshot is copied to its buddy, which writes it
         * as {@code buddy-<k>.snap} into the directory of its host, and every host gets the manifest.
         *
         * @param buddyOf element k: the buddy of node k, another node (on another host); one element
         *        per node, or none for one directory every node sees (the default)
         */
        public Builder checkpointBuddies(int... buddyOf) {
            this.checkpointBuddies = buddyOf.clone();
            return this;
        }

        /** @param listener told on node 0 the epoch of each complete checkpoint, on the checkpoint thread (default: nothing) */
        public Builder onCheckpoint(java.util.function.LongConsumer listener) {
            this.checkpointCommitted = java.util.Objects.requireNonNull(listener, "checkpoint listener");
            return this;
        }

        /**
         * Checkpoints for resumable programs: at every {@code every}-th global barrier epoch, at the
         * safe point live migration uses, every node writes its state into {@code dir}.
         *
         * @param every global barriers between checkpoints, in {@code [1, MAX_CHECKPOINT_EVERY]}; 0 turns them off
         * @param dir the directory (made if missing; shared by every node of the VM); required when {@code every > 0}
         */
        public Builder checkpoints(long every, Path dir) {
            this.checkpointEvery = every;
            this.checkpointDir = dir;
            return this;
        }

        /**
         * @param sync force every checkpoint file, and the directories that name them, to disk before
         *        the checkpoint counts as complete (default true; false: written and renamed, not
         *        forced; see {@link DsaConfig#checkpointSync()})
         */
        public Builder checkpointSync(boolean sync) {
            this.checkpointSync = sync;
            return this;
        }

        /** @param strategy how the node's threads wait for the network (see {@link WaitStrategy}) */
        public Builder waitStrategy(WaitStrategy strategy) {
            this.waitStrategy = java.util.Objects.requireNonNull(strategy, "wait strategy");
            return this;
        }

        /**
         * Tells {@link WaitStrategy#ADAPTIVE} how many node threads share this node's machine, so that
         * nodes started as separate processes on one machine (as {@code dsa run} does) do not each
         * spin as if they had the cores to themselves: a thread spinning on a core that another
         * node's thread needs delays that thread by a scheduler time slice.
         *
         * @param threads workers plus one I/O thread per node, over every node the machine runs, in
         *        {@code [0, MAX_MACHINE_THREADS]}; 0 counts the nodes of this JVM only
         */
        public Builder machineThreads(int threads) { this.machineThreads = threads; return this; }

        /** @param partitions partitions requested ahead of a sequential partition read, in {@code [0, MAX_PREFETCH_WINDOW]} */
        public Builder prefetchWindow(int partitions) { this.prefetchWindow = partitions; return this; }

        /** @param listener where the nodes' {@link io.dsa.DsaNode#progress(String)} lines go (default: the log) */
        public Builder progress(ProgressListener listener) {
            this.progress = java.util.Objects.requireNonNull(listener, "progress listener");
            return this;
        }

        /** @param kind how the global barrier travels between nodes */
        public Builder barrier(BarrierKind kind) { this.barrier = java.util.Objects.requireNonNull(kind, "barrier kind"); return this; }

        /** @param fanout children per node of a k-ary barrier tree, in {@code [2, 64]} */
        public Builder barrierFanout(int fanout) { this.barrierFanout = fanout; return this; }

        /** @param mode who sends a node's barrier messages */
        public Builder proxy(ProxyMode mode) { this.proxy = java.util.Objects.requireNonNull(mode, "proxy mode"); return this; }

        /** @param on whether the global barrier uses barrier lanes where it can ({@link DsaConfig#barrierLanes()}) */
        public Builder barrierLanes(boolean on) { this.barrierLanes = on; return this; }

        /** @param on whether connections between nodes of one machine use shared rings ({@link DsaConfig#sharedRings()}) */
        public Builder sharedRings(boolean on) { this.sharedRings = on; return this; }

        /** @param on whether homes push partitions to their returning readers ({@link DsaConfig#readerPushes()}) */
        public Builder readerPushes(boolean on) { this.readerPushes = on; return this; }

        /** @param on whether nodes drop copies their homes rewrite epoch after epoch ({@link DsaConfig#selfInvalidation()}) */
        public Builder selfInvalidation(boolean on) { this.selfInvalidation = on; return this; }

        /** @param on whether a returning element read requests the array's other returning partitions ({@link DsaConfig#returningReads()}) */
        public Builder returningReads(boolean on) { this.returningReads = on; return this; }

        /** @param on whether the nodes count access hits ({@link DsaConfig#hitCounts()}) */
        public Builder hitCounts(boolean on) { this.hitCounts = on; return this; }

        /** @param on whether each node binds its threads to a share of the machine's cores ({@link DsaConfig#bindCores()}) */
        public Builder bindCores(boolean on) { this.bindCores = on; return this; }

        /**
         * Says which share of its machine's cores this node binds to ({@link DsaConfig#coreShare()}),
         * for VMs whose nodes are spread over machines: a launcher that knows the placement gives
         * each node its index among the nodes on its machine.
         *
         * @param share this node's index among the VM's nodes on its machine, in {@code [0, shares)}
         * @param shares the VM's nodes on this node's machine, in {@code [1, MAX_NODES]}
         */
        public Builder coreShare(int share, int shares) {
            this.coreShare = share;
            this.coreShares = shares;
            return this;
        }

        /**
         * How every connection of the VM is protected after its handshake: {@link TransportSecurity#ENCRYPT}
         * (the default: AES-256-GCM, nobody on the path reads or changes a frame) or
         * {@link TransportSecurity#MAC} (trusted networks only: frames travel in clear, each one
         * authenticated, so nobody on the path changes, injects, replays or reorders one). Every
         * node, and the {@code dsa host} daemons and launchers a VM talks to, must use the same
         * value: a peer with the other is refused at the handshake, with both named.
         *
         * @param security the protection; not null
         */
        public Builder transportSecurity(TransportSecurity security) {
            this.transportSecurity = java.util.Objects.requireNonNull(security, "transport security");
            return this;
        }

        /** @param nodes nodes in the VM, in {@code [1, MAX_NODES]} */
        public Builder nodes(int nodes) { this.nodes = nodes; return this; }

        /** @param threads worker threads per node, in {@code [1, MAX_THREADS_PER_NODE]} */
        public Builder threadsPerNode(int threads) { this.threadsPerNode = threads; return this; }

        /** @param vmName the VM's name: letters, digits, '-', '_', '.', at most 64 */
        public Builder vmName(String vmName) { this.vmName = vmName; return this; }

        /** @param secret the cluster secret, at least 16 bytes */
        public Builder secret(byte[] secret) { this.secret = secret.clone(); return this; }

        /** Generates a random 32-byte secret, for a VM whose agents all live in this JVM. */
        public Builder randomSecret() { this.secret = SecretSources.random(); return this; }

        /**
         * Reads the secret from a file (its bytes, trailing newline removed).
         *
         * @throws IllegalArgumentException if the file cannot be read
         */
        public Builder secretFile(Path file) { this.secret = SecretSources.fromFile(file); return this; }

        /**
         * Reads the secret from {@value #SECRET_ENV}.
         *
         * @throws IllegalArgumentException if it is not set
         */
        public Builder secretFromEnvironment() { this.secret = SecretSources.fromEnvironment(SECRET_ENV); return this; }

        /** @param host the address to bind, e.g. 127.0.0.1 */
        public Builder bindHost(String host) { this.bindHost = host; return this; }

        /** @param port the port to bind, in {@code [0, 65535]}; 0 picks a free one */
        public Builder port(int port) { this.port = port; return this; }

        /** @param nodeId this agent's node id, in {@code [0, nodes)} */
        public Builder nodeId(int nodeId) { this.nodeId = nodeId; return this; }

        /** @param hostPort node 0's {@code host:port}; required for every other node */
        public Builder monitorAddress(String hostPort) { this.monitorAddress = hostPort; return this; }

        /** @param bytes largest frame accepted, in {@code [4096, 1 GiB]} */
        public Builder maxFrameBytes(int bytes) { this.maxFrameBytes = bytes; return this; }

        /** @param ms how long to wait for the VM to form, in {@code [1, 3600000]} */
        public Builder startupTimeoutMs(long ms) { this.startupTimeoutMs = ms; return this; }

        /**
         * @param ms how long a node may be silent on a connection before the job fails naming it, in
         *        {@code [MIN_FAILURE_TIMEOUT_MS, MAX_FAILURE_TIMEOUT_MS]} ({@value #MIN_FAILURE_TIMEOUT_MS} to
         *        {@value #MAX_FAILURE_TIMEOUT_MS}); default {@value #DEFAULT_FAILURE_TIMEOUT_MS}. Longer than the
         *        longest pause a node may take (a full garbage collection), shorter than a user's patience.
         */
        public Builder failureTimeoutMs(long ms) { this.failureTimeoutMs = ms; return this; }

        /** @return a copy of this builder's values (arrays copied too) */
        Builder copy() {
            Builder c = new Builder();
            c.nodes = nodes;
            c.threadsPerNode = threadsPerNode;
            c.vmName = vmName;
            c.secret = secret.clone();
            c.bindHost = bindHost;
            c.port = port;
            c.nodeId = nodeId;
            c.monitorAddress = monitorAddress;
            c.maxFrameBytes = maxFrameBytes;
            c.startupTimeoutMs = startupTimeoutMs;
            c.failureTimeoutMs = failureTimeoutMs;
            c.barrier = barrier;
            c.barrierFanout = barrierFanout;
            c.proxy = proxy;
            c.barrierLanes = barrierLanes;
            c.sharedRings = sharedRings;
            c.readerPushes = readerPushes;
            c.selfInvalidation = selfInvalidation;
            c.returningReads = returningReads;
            c.hitCounts = hitCounts;
            c.bindCores = bindCores;
            c.coreShare = coreShare;
            c.coreShares = coreShares;
            c.waitStrategy = waitStrategy;
            c.machineThreads = machineThreads;
            c.prefetchWindow = prefetchWindow;
            c.transportSecurity = transportSecurity;
            c.progress = progress;
            c.checkpointEvery = checkpointEvery;
            c.checkpointDir = checkpointDir;
            c.checkpointSync = checkpointSync;
            c.checkpointBuddies = checkpointBuddies.clone();
            c.checkpointCommitted = checkpointCommitted;
            c.hostAddress = hostAddress;
            return c;
        }

        /**
         * @return the config
         * @throws IllegalArgumentException naming the first bad value and its valid range
         */
        public DsaConfig build() {
            ConfigChecks.range("nodes", nodes, 1, MAX_NODES);
            ConfigChecks.range("threads per node", threadsPerNode, 1, MAX_THREADS_PER_NODE);
            ConfigChecks.range("node id", nodeId, 0, nodes - 1);
            ConfigChecks.range("port", port, 0, 65535);
            ConfigChecks.range("max frame bytes", maxFrameBytes, MIN_MAX_FRAME_BYTES, MAX_MAX_FRAME_BYTES);
            ConfigChecks.range("startup timeout ms", startupTimeoutMs, 1, 3_600_000);
            ConfigChecks.range("failure timeout ms", failureTimeoutMs, MIN_FAILURE_TIMEOUT_MS, MAX_FAILURE_TIMEOUT_MS);
            ConfigChecks.range("barrier fanout", barrierFanout, 2, 64);
            ConfigChecks.range("prefetch window", prefetchWindow, 0, MAX_PREFETCH_WINDOW);
            ConfigChecks.range("machine threads", machineThreads, 0, MAX_MACHINE_THREADS);
            if (coreShares != -1) {
                ConfigChecks.range("core shares", coreShares, 1, MAX_NODES);
                ConfigChecks.range("core share", coreShare, 0, coreShares - 1);
            }
            ConfigChecks.checkpoints(checkpointEvery, checkpointDir, checkpointBuddies, nodes);
            ConfigChecks.addresses(vmName, secret, bindHost, nodeId, monitorAddress);
            return new DsaConfig(this);
        }
    }
}
