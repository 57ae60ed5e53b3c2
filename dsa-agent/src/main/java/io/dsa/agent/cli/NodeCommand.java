package io.dsa.agent.cli;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa node}: one node of a virtual machine in this process. {@code dsa run} starts one per
 * child process; it can also be started by hand or by a site launcher. Node 0 is the monitor and
 * prints the job's report; the others print only failures. Exit code 0 if the job succeeded.
 */
@Command(name = "node",
        hidden = true,
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Runs one node of a virtual machine (what 'dsa run' starts in each child process).",
            "The cluster secret comes from --secret-stdin (the first line of stdin: how 'dsa run' hands it over), --secret-file"
                    + " or the environment variable " + DsaConfig.SECRET_ENV + "."})
final class NodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    JobOptions job;

    @Mixin
    MetricsOption metrics = new MetricsOption();

    @Mixin
    ClassPathOption classPath;

    @Option(names = "--job-start-ms", paramLabel = "MS", hidden = true,
            description = "When the job started (ms since the epoch), for the time on progress lines; default: now.")
    Long jobStartMs;

    /** The option that restarts this node from a checkpoint's epoch directory. */
    static final String RESTART_OPTION = "--restart-checkpoint";

    @Option(names = RESTART_OPTION, paramLabel = "DIR",
            description = "Start this node from the checkpoint in DIR (an epoch-E directory of a --checkpoint-dir; every node of the VM"
                    + " from the same one) and resume the program there; 'dsa run' passes it when it restarts a VM.")
    java.nio.file.Path restartCheckpoint;

    @Option(names = "--node", paramLabel = "K", description = "This node's id, in [0, N); required unless --slurm.")
    Integer nodeOption;

    @Option(names = "--slurm",
            description = {"Started by SLURM's srun: the node id is SLURM_PROCID, --nodes is SLURM_NTASKS, node 0 runs on the first"
                + " host of SLURM_NODELIST and listens there on --port (default: " + SLURM_PORT + "); each node listens on its host"
                + " (SLURMD_NODENAME) unless --bind says otherwise."})
    boolean slurm;

    /** The monitor's port under {@code --slurm} when {@code --port} is not given. */
    static final int SLURM_PORT = 7077;

    /** The environment: SLURM's variables come from here ({@code --slurm}); tests replace it. */
    static java.util.function.Function<String, String> environment = System::getenv;

    private int nodeId;

    @Option(names = "--monitor", paramLabel = "HOST:PORT", description = "Node 0's address; required unless --node 0.")
    String monitorAddress;

    @Mixin
    SecretOptions secretOptions;

    @Option(names = "--secret-stdin", description = "Read the cluster secret from the first line of stdin (a pipe from 'dsa run').")
    boolean secretStdin;

    @Option(names = "--bind", paramLabel = "HOST", defaultValue = DsaConfig.DEFAULT_BIND_HOST,
            description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String bindHost;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() {
        try (ClassPathOption.Scope programs = classPath.open(spec)) {
            return runNode();
        }
    }

    private Integer runNode() {
        if (secretStdin && secretOptions.secretFile != null) throw Checks.usage(spec, "--secret-stdin and --secret-file exclude each other");
        if (slurm) {
            fromSlurm();
        } else if (nodeOption == null) {
            throw Checks.usage(spec, "--node K is required (or --slurm, under srun)");
        } else {
            nodeId = nodeOption;
        }
        job.validate(spec);
        metrics.validate(spec);
        Checks.range(spec, "--node", nodeId, 0, job.nodes - 1);
        Checks.range(spec, "--port", port, 0, 65535);
        if (nodeId != 0 && monitorAddress == null) {
            throw Checks.usage(spec, "--monitor HOST:PORT is required for node " + nodeId);
        }
        Class<? extends DsaProgram> programType = RunCommand.resolveProgram(spec, job.program);
        RunCommand.validateArgs(spec, programType, job);
        if (restartCheckpoint != null) checkCheckpoint(programType);
        byte[] secret;
        try {
            secret = secretStdin ? Secrets.fromStream(System.in) : secretOptions.secret(spec);
        } catch (Secrets.SecretException e) {
            throw Checks.usage(spec, e.getMessage());
        }
        DsaConfig config;
        try {
            DsaConfig.Builder builder = job.config();
            if (coreShare != null) builder.coreShare(coreShare[0], coreShare[1]);
            config = builder.nodeId(nodeId).bindHost(bindHost).port(port).monitorAddress(nodeId == 0 ? null : monitorAddress)
                    .secret(secret).progress(new ProgressPrinter(spec.commandLine().getOut(),
                            jobStartMs != null ? jobStartMs : System.currentTimeMillis())).build();
        } catch (IllegalArgumentException e) {
            throw Checks.usage(spec, e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            return run(config, ProgramCatalog.instantiate(programType), out);
        } catch (RuntimeException e) {
            failed(Jobs.describe(e));
            return DsaCli.EXIT_FAILED;
        }
    }

    // --restart-checkpoint: the checkpoint must be of this program, its arguments and this VM's shape.
    private void checkCheckpoint(Class<? extends DsaProgram> programType) {
        io.dsa.agent.checkpoint.CheckpointManifest m;
        try {
            m = CheckpointStore.manifest(restartCheckpoint);
        } catch (io.dsa.DsaException e) {
            throw Checks.usage(spec, RESTART_OPTION + ": " + e.getMessage());
        }
        if (!m.program().equals(programType.getName()) || !m.args().equals(job.args) || m.nodes() != job.nodes
                || m.threadsPerNode() != job.threads) {
            throw Checks.usage(spec, RESTART_OPTION + " " + restartCheckpoint + " is of " + m.program() + " " + m.args() + " on "
                    + m.nodes() + " x " + m.threadsPerNode() + ", not " + programType.getName() + " " + job.args + " on " + job.nodes
                    + " x " + job.threads);
        }
    }

    private int[] coreShare;   // under SLURM: this task's share of its host's cores, when SLURM says

    // --slurm: the node id, the VM's size, node 0's address and this node's from SLURM's variables.
    private void fromSlurm() {
        if (nodeOption != null || monitorAddress != null) throw Checks.usage(spec, "--slurm takes the node and the monitor from SLURM: drop --node and --monitor");
        SlurmTask task;
        try {
            task = SlurmTask.from(environment);
        } catch (IllegalArgumentException e) {
            throw Checks.usage(spec, "--slurm: " + e.getMessage());
        }
        if (given("--nodes") && job.nodes != task.nodes()) {
            throw Checks.usage(spec, "--nodes " + job.nodes + " differs from " + SlurmTask.NTASKS + " " + task.nodes() + "; drop --nodes");
        }
        job.nodes = task.nodes();
        nodeId = task.nodeId();
        if (task.localTasks() > 0) coreShare = new int[] {task.localId(), task.localTasks()};   // --bind-cores: its host's share
        int monitorPort = given("--port") ? port : SLURM_PORT;
        if (!given("--bind")) bindHost = task.thisHost() != null ? task.thisHost() : nodeId == 0 ? task.firstHost() : bindHost;
        port = nodeId == 0 ? monitorPort : 0;
        monitorAddress = task.firstHost() + ":" + monitorPort;
    }

    private boolean given(String option) { return spec.commandLine().getParseResult().hasMatchedOption(option); }

    // Node 0 prints the job's verdict; the others say why they stopped on stderr, which `dsa run` forwards.
    private void failed(String reason) {
        if (nodeId == 0) {
            Jobs.printFailed(spec.commandLine().getOut(), reason);
        } else {
            PrintWriter err = spec.commandLine().getErr();
            err.println("node " + nodeId + " stopped: " + reason);
            err.flush();
        }
    }

    private int run(DsaConfig config, DsaProgram program, PrintWriter out) {
        try (DsaAgent agent = restartCheckpoint == null ? DsaAgent.start(config)
                : DsaAgent.restart(config, new CheckpointStore.Checkpoint(restartCheckpoint, CheckpointStore.manifest(restartCheckpoint)));
             MetricsOption.Exposure exposure = metrics.expose(config.bindHost(), () -> List.of(agent), "node " + nodeId, out)) {
            if (exposure != null) exposure.register(agent);
            if (nodeId == 0) {
                out.println("node 0 (monitor) listening on " + agent.address());
                out.flush();
            }
            List<String> args = List.copyOf(job.args);
            CompletableFuture<RunReport> run = Jobs.start(() -> restartCheckpoint == null ? agent.run(program, args)
                    : agent.resume(program, args));
            RunReport report;
            try {
                report = run.get(job.timeoutMs(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                failed(Jobs.timedOut(job.timeoutSeconds, agent.vmWorkerLines(Jobs.WORKERS_ANSWER_MS)));
                return DsaCli.EXIT_FAILED;
            } catch (ExecutionException e) {
                failed(Jobs.describe(e));
                return DsaCli.EXIT_FAILED;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed("interrupted");
                return DsaCli.EXIT_FAILED;
            }
            if (nodeId == 0) {
                Jobs.printReport(out, report);
                Jobs.printOk(out);
            }
            return 0;
        }
    }
}
