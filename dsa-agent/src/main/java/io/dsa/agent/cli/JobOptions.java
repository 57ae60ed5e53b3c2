package io.dsa.agent.cli;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options and parameters shared by {@code dsa run} and {@code dsa node}: the VM's shape and the program. */
final class JobOptions {
    /** Range of {@code --fanout}, as {@link DsaConfig.Builder#barrierFanout(int)} accepts it. */
    static final int MIN_FANOUT = 2;
    static final int MAX_FANOUT = 64;
    /** Longest run accepted by {@code --timeout}: one day. */
    static final long MAX_TIMEOUT_SECONDS = 86_400;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "4",
            description = "Nodes in the virtual machine (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "2",
            description = "Worker threads per node (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--vm", paramLabel = "NAME", defaultValue = DsaConfig.DEFAULT_VM,
            description = "Name of the virtual machine (default: ${DEFAULT-VALUE}).")
    String vmName;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "Fail the job if it has not finished after this many seconds (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--failure-timeout-ms", paramLabel = "MS", defaultValue = "" + DsaConfig.DEFAULT_FAILURE_TIMEOUT_MS,
            description = "Fail the job when a node is silent this long on any connection (dead, hung, stopped, or cut off"
                    + " without a reset), naming it; connections heartbeat after a third of it idle; from "
                    + DsaConfig.MIN_FAILURE_TIMEOUT_MS + " to " + DsaConfig.MAX_FAILURE_TIMEOUT_MS + " (default: ${DEFAULT-VALUE}).")
    long failureTimeoutMs;

    @Option(names = "--barrier", paramLabel = "KIND", defaultValue = "TREE",
            description = "How the global barrier travels between nodes: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    BarrierKind barrier;

    @Option(names = "--fanout", paramLabel = "K", defaultValue = "" + DsaConfig.DEFAULT_BARRIER_FANOUT,
            description = "Children per node of a KARY barrier tree (default: ${DEFAULT-VALUE}).")
    int barrierFanout;

    @Option(names = "--proxy", paramLabel = "MODE", defaultValue = "FLOAT",
            description = "Who sends a node's barrier messages: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ProxyMode proxy;

    @Option(names = "--barrier-lanes", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Carry the TREE/FLOAT global barrier between node 0 and the nodes on its machine over Unix-domain"
                    + " lanes that the workers write and read themselves, without a hand-off to an I/O thread (docs/runtime.md,"
                    + " \"Barrier lanes\"); --no-barrier-lanes: over the connections only (default: on).")
    boolean barrierLanes;

    @Option(names = "--shared-rings", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Between nodes of one machine, move the bodies of large messages (partitions, diffs, pushes of 4 KiB"
                    + " and more) through rings in shared memory, a small sealed frame on the connection saying where"
                    + " (docs/runtime.md, \"Bulk bytes through shared memory\"); --no-shared-rings: every byte on the sockets"
                    + " (default: on).")
    boolean sharedRings;

    @Option(names = "--reader-pushes", description = "A home pushes a partition it invalidated to the nodes that read it again"
            + " epoch after epoch, at its next global barrier or collective, so their next read hits (docs/runtime.md, \"Pushes to"
            + " returning readers\"; default: off: on 2 cores NPB CG 4x2 ran 0.81x the time, 2x1 1.17x).")
    boolean readerPushes;

    @Option(names = "--self-invalidation", description = "A node drops its shared copy of a partition that its home rewrites"
            + " epoch after epoch, at its next global barrier or collective after it read the copy again, and tells the home, so"
            + " the home's next write waits for no invalidation (docs/runtime.md, \"Self-invalidation\"; default: off).")
    boolean selfInvalidation;

    @Option(names = "--returning-reads", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "An element read that misses on a partition its node missed on before, the first such miss after a"
                    + " global barrier or collective, also requests the array's other partitions the node missed on before, so"
                    + " they travel together (docs/runtime.md, \"Returning reads\"); --no-returning-reads: one miss at a time"
                    + " (default: on).")
    boolean returningReads;

    @Option(names = "--hit-counts", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Count the hits of element, partition and region accesses (dsa status, the metrics);"
                    + " --no-hit-counts: an element access hit skips its counter, about a fifth of an"
                    + " element loop's time, and dsa status shows hits as not counted (docs/runtime.md, \"What a hit's counter"
                    + " costs\"); misses, invalidations and bytes"
                    + " are counted either way (default: on).")
    boolean hitCounts;

    @Option(names = "--bind-cores", description = "Bind each node's workers and I/O thread to a share of this machine's cores,"
            + " as MPI binds its ranks: node k of n gets cores [k c / n, (k + 1) c / n) of c, or core k mod c when the nodes"
            + " outnumber the cores (with --hosts, k and n count the nodes on each host); Linux, with taskset (docs/runtime.md,"
            + " \"Binding nodes to cores\"; default: off).")
    boolean bindCores;

    @Option(names = "--wait", paramLabel = "STRATEGY", defaultValue = "ADAPTIVE",
            description = "How the nodes' threads wait for the network: park (no CPU while waiting), spin (a core per worker;"
                    + " a waiting thread runs its node's messages itself, as MPI ranks do: docs/runtime.md \"SPIN\"),"
                    + " adaptive (spin briefly, then park; spins only while the machine's node threads fit its cores), poll (workers park"
                    + " and each node's I/O thread polls while one waits: fast remote misses once warm with no spinning worker, slower JIT warm-up;"
                    + " best with --bind-cores; docs/runtime.md \"POLL\") (default: adaptive).")
    WaitStrategy waitStrategy;

    @Option(names = "--machine-threads", paramLabel = "N", defaultValue = "0",
            description = "Node threads (workers plus one I/O thread per node) that share each machine, which --wait adaptive"
                    + " compares with its cores; 0: 'dsa run' counts the nodes it starts on this machine, a node started"
                    + " otherwise counts those of its JVM; from 0 to " + DsaConfig.MAX_MACHINE_THREADS + " (default: 0).")
    int machineThreads;

    @Option(names = "--prefetch-window", paramLabel = "P", defaultValue = "" + DsaConfig.DEFAULT_PREFETCH_WINDOW,
            description = "Partitions a node requests ahead of a loop reading partitions in order; 0: none (default: ${DEFAULT-VALUE}).")
    int prefetchWindow;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Option(names = "--max-frame-bytes", paramLabel = "BYTES", defaultValue = "" + DsaConfig.DEFAULT_MAX_FRAME_BYTES,
            description = "Largest frame a node sends or accepts (larger messages, such as big partitions, travel in"
                    + " chunks); from " + DsaConfig.MIN_MAX_FRAME_BYTES + " to "
                    + DsaConfig.MAX_MAX_FRAME_BYTES + " (default: ${DEFAULT-VALUE}).")
    int maxFrameBytes;

    @Option(names = "--checkpoint-every", paramLabel = "N", defaultValue = "0",
            description = {"Checkpoint a resumable program every N global barriers: at each N-th barrier epoch every node writes"
                    + " its state into --checkpoint-dir (docs/failures.md); 0: none; from 0 to " + DsaConfig.MAX_CHECKPOINT_EVERY
                    + " (default: ${DEFAULT-VALUE}).",
                "With 'dsa run --hosts': each node into its host's directory, and a copy on a buddy node on another host."})
    long checkpointEvery;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "With --checkpoint-every: where checkpoints go, one directory epoch-E per checkpoint, the last two complete"
                    + " ones kept (default for 'dsa run': a fresh directory it names; with --hosts: an absolute path each host makes"
                    + " on its own disk, default checkpoints-VM in each host's private work directory).")
    java.nio.file.Path checkpointDir;

    @Option(names = "--no-checkpoint-sync",
            description = {"With --checkpoint-every: write and rename every checkpoint file without forcing it to disk (no fsync)."
                    + " Such a checkpoint survives the loss of any node process, and on hosts of any host whose nodes' buddies"
                    + " survive, but not a crash of the operating system or a power loss of every host; for disks where fsync is"
                    + " slow (docs/failures.md, \"Forced or not\"). Default: forced."})
    boolean noCheckpointSync;

    @Parameters(index = "0", paramLabel = "PROGRAM", arity = "0..1",
            description = "A program's short name (see 'dsa programs') or the full name of a class implementing io.dsa.DsaProgram"
                    + " (with 'dsa run --restart-from': the checkpoint's, may be left out).")
    String program;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "The program's arguments.")
    List<String> args = new ArrayList<>();

    /** @throws picocli.CommandLine.ParameterException naming the first bad value and its range */
    void validate(CommandSpec spec) {
        Checks.range(spec, "--nodes", nodes, 1, DsaConfig.MAX_NODES);
        Checks.range(spec, "--threads", threads, 1, DsaConfig.MAX_THREADS_PER_NODE);
        Checks.range(spec, "--timeout", timeoutSeconds, 1, MAX_TIMEOUT_SECONDS);
        Checks.range(spec, "--failure-timeout-ms", failureTimeoutMs, DsaConfig.MIN_FAILURE_TIMEOUT_MS,
                DsaConfig.MAX_FAILURE_TIMEOUT_MS);
        Checks.range(spec, "--fanout", barrierFanout, MIN_FANOUT, MAX_FANOUT);
        Checks.range(spec, "--max-frame-bytes", maxFrameBytes, DsaConfig.MIN_MAX_FRAME_BYTES, DsaConfig.MAX_MAX_FRAME_BYTES);
        Checks.range(spec, "--prefetch-window", prefetchWindow, 0, DsaConfig.MAX_PREFETCH_WINDOW);
        Checks.range(spec, "--machine-threads", machineThreads, 0, DsaConfig.MAX_MACHINE_THREADS);
        Checks.range(spec, "--checkpoint-every", checkpointEvery, 0, DsaConfig.MAX_CHECKPOINT_EVERY);
        if (program == null) throw Checks.usage(spec, "Missing required parameter: 'PROGRAM'");
        if (vmName == null || !vmName.matches(DsaConfig.VM_NAME_PATTERN)) {
            throw Checks.usage(spec, "--vm '" + vmName + "' invalid: use 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** @return the base config: shape, VM name and transport security */
    DsaConfig.Builder config() {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).vmName(vmName)
                .barrier(barrier).barrierFanout(barrierFanout).proxy(proxy).waitStrategy(waitStrategy).machineThreads(machineThreads)
                .barrierLanes(barrierLanes).sharedRings(sharedRings).readerPushes(readerPushes).selfInvalidation(selfInvalidation).returningReads(returningReads).hitCounts(hitCounts).bindCores(bindCores).prefetchWindow(prefetchWindow).transportSecurity(security.value).maxFrameBytes(maxFrameBytes)
                .failureTimeoutMs(failureTimeoutMs).checkpoints(checkpointEvery, checkpointEvery > 0 ? checkpointDir : null)
                .checkpointSync(!noCheckpointSync);
    }

    /** @return the options a child node needs to form the same VM, as command-line arguments */
    List<String> vmArguments() {
        List<String> arguments = new ArrayList<>(List.of("--nodes", Integer.toString(nodes), "--threads", Integer.toString(threads),
                "--vm", vmName, "--barrier", barrier.name(), "--fanout", Integer.toString(barrierFanout), "--proxy", proxy.name(),
                "--wait", waitStrategy.name(), "--machine-threads", Integer.toString(machineThreads), "--prefetch-window", Integer.toString(prefetchWindow),
                "--timeout", Long.toString(timeoutSeconds), "--max-frame-bytes", Integer.toString(maxFrameBytes),
                "--failure-timeout-ms", Long.toString(failureTimeoutMs)));
        if (!barrierLanes) arguments.add("--no-barrier-lanes");
        if (!sharedRings) arguments.add("--no-shared-rings");
        if (readerPushes) arguments.add("--reader-pushes");
        if (selfInvalidation) arguments.add("--self-invalidation");
        if (!returningReads) arguments.add("--no-returning-reads");
        if (!hitCounts) arguments.add("--no-hit-counts");
        if (bindCores) arguments.add("--bind-cores");
        arguments.addAll(security.arguments());
        if (checkpointEvery > 0) {
            arguments.addAll(List.of("--checkpoint-every", Long.toString(checkpointEvery), "--checkpoint-dir", checkpointDir.toString()));
            if (noCheckpointSync) arguments.add("--no-checkpoint-sync");
        }
        return arguments;
    }

    /**
     * Every node of the VM runs on this machine (as separate processes): unless {@code --machine-threads}
     * said otherwise, {@code --wait adaptive} counts all their threads, not only those of one JVM.
     */
    void allNodesOnThisMachine() {
        if (machineThreads == 0) machineThreads = (int) Math.min(DsaConfig.MAX_MACHINE_THREADS, (long) nodes * (threads + 1));
    }

    /** @return the timeout in milliseconds */
    long timeoutMs() { return timeoutSeconds * 1000; }
}
