package io.dsa.agent.cli;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostConfig;
import io.dsa.agent.host.JobJar;
import io.dsa.agent.host.JvmCommand;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa run}: starts a virtual machine on this machine, runs a program on it, prints the
 * program's report, the timings and the result.
 *
 * <p>By default every node is its own JVM: this process is node 0 (and so the monitor) and starts
 * nodes 1..N-1 as child processes of the same Java and class path. {@code --in-process} runs the
 * whole VM in this JVM instead. Exit code 0 only if every worker succeeded and every child exited
 * with 0; on failure or timeout every child process is ended.
 */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Starts a virtual machine on this machine, runs PROGRAM on it and prints its result.",
        footer = {"", "Examples:",
            "  dsa run --nodes 4 --threads 2 inner-product 512 32",
            "  dsa run --in-process matmul 256 32",
            "  dsa run --hosts 10.0.0.2:7000,10.0.0.3:7000 --threads 4 --secret-file ~/.dsa-secret jacobi 512 200"})
final class RunCommand implements Callable<Integer> {
    /** The class every child process runs. */
    static final String MAIN_CLASS = DsaCli.class.getName();
    /** Random bytes of the secret of a VM on this machine. */
    static final int SECRET_BYTES = 32;

    @Spec
    CommandSpec spec;

    @Mixin
    JobOptions job;

    @Mixin
    ClassPathOption classPath;

    @Option(names = "--in-process", description = "Run every node in this JVM instead of one process per node.")
    boolean inProcess;

    @Option(names = "--jvm-options", paramLabel = "OPTIONS",
            description = {"JVM options for the node processes this command starts (nodes 1..N-1), separated by spaces,"
                    + " each -X..., -XX:... or -D..., e.g. \"-Xmx4g\" or, for a job of a few seconds on a machine with few"
                    + " cores, \"-XX:TieredStopAtLevel=1\" (docs/runtime.md, \"Short jobs and the JIT\"); node 0 is this"
                    + " process: give it options with JAVA_TOOL_OPTIONS. Not with --in-process or --hosts (there: --job-heap,"
                    + " --job-cpus)."})
    String jvmOptions;

    /** The node processes' JVM options of {@code --jvm-options}, checked; empty when not given. */
    private List<String> nodeJvmOptions = List.of();

    @Option(names = "--aot-cache", paramLabel = "DIR",
            description = {"Keep what the node processes' JVMs learn in DIR, so that later runs start and warm up faster: on"
                    + " Java 25 and later the JVM's AOT cache (classes loaded and linked, method profiles: JEP 483 and 515) in DIR/"
                    + AotCache.NODE_CACHE + ", before that its class data archive (the classes loaded and verified) in DIR/"
                    + AotCache.NODE_ARCHIVE + ". The first run writes it (node 1 trains it), every later run with the same DIR uses"
                    + " it; the 'dsa' script does the same for this process (DIR/launcher.aot or DIR/launcher.jsa). A cache is tied"
                    + " to the class path and the JVM: after a rebuild, with another --cp or another java, the next run trains it"
                    + " again (docs/runtime.md, \"Short jobs and the JIT\"). Jars only on the class path. Not with --in-process or"
                    + " --hosts."})
    Path aotCache;

    /** The node processes' cache of {@code --aot-cache}, checked; null when not given. */
    AotCache aot;

    @Mixin
    MetricsOption metrics = new MetricsOption();

    @Option(names = "--hosts", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = {"Form the VM on these running 'dsa host' daemons instead of this machine: node k on host k mod H.",
                "--nodes defaults to the number of hosts. The program's jar (or --classpath) is shipped to each host.",
                "With --launcher, the hosts where daemons are to be started: HOST[:PORT], no port or 0 for any free one."})
    String hostsOption;

    @Mixin
    SecretOptions secretOptions;

    @Option(names = "--job-heap", paramLabel = "SIZE",
            description = "With --hosts: the heap of each node's JVM on its host, e.g. 512m (the host caps it at its"
                    + " --max-job-heap; default: the host's).")
    String jobHeap;

    @Option(names = "--job-cpus", paramLabel = "N",
            description = "With --hosts: the processors of each node's JVM on its host (the host caps it at its --max-job-cpus;"
                    + " default: the host's).")
    Integer jobCpus;

    /** How {@code --launcher} starts the hosts' daemons. */
    enum Launcher { SSH }

    @Option(names = "--launcher", paramLabel = "KIND",
            description = "With --hosts: start a 'dsa host' daemon on each host for this job, and stop it after: ${COMPLETION-CANDIDATES}"
                    + " (over ssh; the secret file is copied with mode 600; docs/deploy.md).")
    Launcher launcher;

    @Option(names = "--ssh", paramLabel = "COMMAND", defaultValue = "${env:" + SshLauncher.SSH_ENV + ":-" + SshLauncher.DEFAULT_SSH + "}",
            description = "With --launcher ssh: the ssh command and its options, split at spaces (default: the environment variable "
                    + SshLauncher.SSH_ENV + ", else '${DEFAULT-VALUE}').")
    String ssh;

    @Option(names = "--remote-dsa", paramLabel = "PATH",
            description = "With --launcher ssh: the dsa command on the hosts (default: this one's path, from " + SshLauncher.COMMAND_ENV
                    + ", which bin/dsa sets: the same installation path everywhere).")
    String remoteDsa;

    @Option(names = "--jar", paramLabel = "FILE",
            description = "With --hosts: the jar (or class directory) to ship; default: where PROGRAM's class was loaded from.")
    Path jarFile;

    @Option(names = "--restart-from", paramLabel = "DIR",
            description = {"Restart a whole VM from the newest complete checkpoint in DIR (a --checkpoint-dir): same program,"
                    + " arguments and shape, recorded there; a damaged or incomplete checkpoint is refused, naming the file,"
                    + " and the one before it taken. The run goes on taking checkpoints into DIR (at the interval recorded,"
                    + " unless --checkpoint-every says otherwise).",
                "With --hosts: DIR (absolute) on each host; give PROGRAM, its arguments and the shape again (each node checks them"
                    + " against the manifest); node 0 takes its host's newest complete checkpoint and the others the same epoch;"
                    + " checkpoints go on only with --checkpoint-every."})
    Path restartFrom;

    @Option(names = "--spare", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = {"With --hosts and --checkpoint-every: running 'dsa host' daemons that take a lost host's place at a restart,"
                    + " in order: its nodes restart on their buddies' hosts (which keep copies of their checkpoint files) and then"
                    + " move to the spare by live migration (docs/failures.md)."})
    String spareOption;

    @Option(names = "--max-restarts", paramLabel = "K", defaultValue = "" + Restarts.DEFAULT_MAX_RESTARTS,
            description = {"With --checkpoint-every (or --restart-from): when a node is lost (its process killed or silent for the"
                    + " failure timeout), end every node and restart the whole VM from the newest complete checkpoint, at most"
                    + " K times; 0: never; from 0 to " + Restarts.MAX_RESTARTS + " (default: ${DEFAULT-VALUE}).",
                "With --hosts, also when a host is lost: its nodes restart on the hosts of their buddies, which keep copies"
                    + " of their checkpoint files (docs/failures.md)."})
    int maxRestarts;

    /** The checkpoint this run starts from ({@code --restart-from}), or null. */
    private CheckpointStore.Checkpoint restartCheckpoint;

    @Override
    public Integer call() throws Exception {
        try (ClassPathOption.Scope programs = classPath.open(spec)) {
            metrics.validate(spec);
            Checks.range(spec, "--max-restarts", maxRestarts, 0, Restarts.MAX_RESTARTS);
            checkJvmOptions();
            checkAotCache(Runtime.version().feature(), programs.joined());
            if (restartFrom != null && hostsOption == null) {
                restartCheckpoint = Restarts.resolve(spec, job, restartFrom, spec.commandLine().getOut());
                if (restartCheckpoint == null) {
                    Jobs.printFailed(spec.commandLine().getOut(), "no complete checkpoint in " + restartFrom);
                    return DsaCli.EXIT_FAILED;
                }
            }
            if (hostsOption != null) {
                if (metrics.on()) throw Checks.usage(spec, "--metrics-port with --hosts: start each host with 'dsa host --metrics-port P'");
                return runOnHosts(programs);
            }
            if (spareOption != null) throw Checks.usage(spec, "--spare " + spareOption + " needs --hosts (and --checkpoint-every)");
            if (secretOptions.secretFile != null || jarFile != null || jobHeap != null || jobCpus != null || launcher != null) {
                throw Checks.usage(spec, "--secret-file, --jar, --job-heap, --job-cpus and --launcher need --hosts");
            }
            job.validate(spec);
            Class<? extends DsaProgram> programType = resolveProgram(spec, job.program);
            validateArgs(spec, programType, job);
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Restarts.prepareCheckpoints(spec, job, programType, out);
            try {
                return inProcess ? runInProcess(programType, out)
                        : new ProcessesRun(job, maxRestarts, metrics, this::childCommand, out, err).run(programType, programs, restartCheckpoint);
            } catch (RuntimeException | IOException e) {   // e.g. an agent that cannot bind, a child that cannot start
                Jobs.printFailed(out, Jobs.describe(e));
                return DsaCli.EXIT_FAILED;
            }
        }
    }

    /**
     * Checks {@code --jvm-options} and keeps them for the node processes ({@link #childCommand}).
     *
     * @throws picocli.CommandLine.ParameterException (exit code 2) naming a bad option, or the option it excludes
     */
    void checkJvmOptions() {
        if (jvmOptions == null) return;
        if (inProcess || hostsOption != null) {
            throw Checks.usage(spec, "--jvm-options is for the node processes 'dsa run' starts on this machine, not with "
                    + (inProcess ? "--in-process (every node is this JVM: use JAVA_TOOL_OPTIONS)" : "--hosts (use --job-heap and --job-cpus)"));
        }
        try {
            nodeJvmOptions = JvmCommand.parseJvmOptions("--jvm-options", jvmOptions);
        } catch (IllegalArgumentException e) {
            throw Checks.usage(spec, e.getMessage());
        }
    }

    /**
     * Checks {@code --aot-cache} for the node processes of this run ({@link AotCache#prepare}, with
     * {@code --cp}'s {@code programClassPath}) and keeps it for {@link #childCommand}.
     *
     * @throws picocli.CommandLine.ParameterException (exit code 2) naming what {@link AotCache#prepare} refuses, or
     *         the option it excludes
     */
    void checkAotCache(int javaFeature, String programClassPath) {
        checkAotCache(javaFeature, programClassPath, nodeClassPath(programClassPath));
    }

    /** {@link #checkAotCache(int, String)} for node processes of class path {@code nodeClassPath}. */
    void checkAotCache(int javaFeature, String programClassPath, String nodeClassPath) {
        if (aotCache == null) return;
        if (inProcess || hostsOption != null) {
            throw Checks.usage(spec, "--aot-cache is for the node processes 'dsa run' starts on this machine, not with "
                    + (inProcess ? "--in-process" : "--hosts"));
        }
        try {
            aot = AotCache.prepare(aotCache, javaFeature, programClassPath, nodeClassPath, spec.commandLine().getOut());
        } catch (IllegalArgumentException e) {
            throw Checks.usage(spec, e.getMessage());
        }
    }

    /** @return the class path of the node processes: this process's, then {@code programClassPath} ({@code --cp}) */
    static String nodeClassPath(String programClassPath) {
        return programClassPath.isEmpty() ? JvmCommand.classPath() : JvmCommand.classPath() + java.io.File.pathSeparator + programClassPath;
    }

    /**
     * Lets the program check its arguments ({@link DsaProgram#validate}) before anything starts.
     *
     * @throws picocli.CommandLine.ParameterException (exit code 2) with the program's message
     */
    static void validateArgs(CommandSpec spec, Class<? extends DsaProgram> programType, JobOptions job) {
        DsaProgram program;
        try {
            program = ProgramCatalog.instantiate(programType);
        } catch (RuntimeException | LinkageError e) {
            return;   // a program that cannot even be made fails where it runs, with that reason (on a host: the host's)
        }
        try {
            program.validate(List.copyOf(job.args), job.nodes, job.threads);
        } catch (IllegalArgumentException | io.dsa.DsaException e) {
            String message = e.getMessage() == null || e.getMessage().isBlank()
                    ? "arguments " + job.args + " refused by " + programType.getName() : e.getMessage();
            throw Checks.usage(spec, message);
        }
    }

    private int runOnHosts(ClassPathOption.Scope programs) throws InterruptedException {
        if (inProcess) throw Checks.usage(spec, "--in-process and --hosts exclude each other");
        List<HostPort> hosts = launcher != null ? HostList.parseToLaunch(spec, hostsOption) : HostList.parse(spec, "--hosts", hostsOption);
        if (!spec.commandLine().getParseResult().hasMatchedOption("--nodes")) job.nodes = hosts.size();
        job.validate(spec);
        long heap = jobHeap == null ? 0 : Checks.bytes(spec, "--job-heap", jobHeap, HostConfig.MIN_JOB_HEAP_BYTES,
                HostConfig.MAX_JOB_HEAP_BYTES);
        if (jobCpus != null) Checks.range(spec, "--job-cpus", jobCpus, 1, HostConfig.MAX_JOB_CPUS);
        byte[] secret = secretOptions.secret(spec);
        Class<? extends DsaProgram> programType = resolveProgram(spec, job.program);
        validateArgs(spec, programType, job);
        String remote = remoteDsa != null ? remoteDsa : System.getenv(SshLauncher.COMMAND_ENV);
        if (launcher == Launcher.SSH && (remote == null || remote.isBlank())) {
            throw Checks.usage(spec, "--launcher ssh needs --remote-dsa PATH, the dsa command on the hosts (bin/dsa of the distribution"
                    + " sets " + SshLauncher.COMMAND_ENV + " to its own path)");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (restartFrom != null) {
            if (!restartFrom.isAbsolute()) {
                throw Checks.usage(spec, "--restart-from " + restartFrom + " with --hosts: an absolute path is needed (each host reads it"
                        + " on its own disk)");
            }
            if (job.checkpointDir != null && !job.checkpointDir.equals(restartFrom)) {
                throw Checks.usage(spec, "--checkpoint-dir with --restart-from: checkpoints go on into " + restartFrom);
            }
            job.checkpointDir = job.checkpointEvery > 0 ? restartFrom : null;
        }
        Restarts.prepareHostCheckpoints(spec, job, programType, hosts, out);
        List<HostPort> spares = spareOption == null ? List.of() : HostList.parse(spec, "--spare", spareOption);
        if (!spares.isEmpty() && job.checkpointEvery == 0) throw Checks.usage(spec, "--spare needs --checkpoint-every N");
        for (HostPort spare : spares) {
            if (hosts.contains(spare)) throw Checks.usage(spec, "--spare " + spare + " is also in --hosts: a spare must be another host");
        }
        if (restartFrom != null) job.checkpointDir = restartFrom;
        try {
            byte[] jar = jarFile != null ? JobJar.read(jarFile)
                    : !programs.entries().isEmpty() ? JobJar.packClassPath(programs.entries()) : JobJar.of(programType);
            if (launcher == null) return new HostsRun(job, hosts, spares, secret, heap, jobCpus == null ? 0 : jobCpus, maxRestarts, restartFrom != null, out).run(programType, jar);
            try (SshLauncher daemons = SshLauncher.start(hosts, ssh, remote, secret, job.security.arguments(), out)) {
                return new HostsRun(job, daemons.addresses(), spares, secret, heap, jobCpus == null ? 0 : jobCpus, maxRestarts, restartFrom != null, out).run(programType, jar);
            }
        } catch (RuntimeException e) {
            Jobs.printFailed(out, Jobs.describe(e));
            return DsaCli.EXIT_FAILED;
        }
    }

    /** @throws picocli.CommandLine.ParameterException for an unknown program, listing the known ones */
    static Class<? extends DsaProgram> resolveProgram(CommandSpec spec, String program) {
        try {
            return ProgramCatalog.fromContext().resolve(program);
        } catch (IllegalArgumentException e) {
            throw Checks.usage(spec, e.getMessage());
        }
    }

    private int runInProcess(Class<? extends DsaProgram> programType, PrintWriter out) throws InterruptedException {
        DsaConfig config = job.config().randomSecret().progress(new ProgressPrinter(out, System.currentTimeMillis())).build();
        DsaProgram program = ProgramCatalog.instantiate(programType);
        String[] args = job.args.toArray(new String[0]);
        CompletableFuture<DsaCluster> cluster = new CompletableFuture<>();
        MetricsOption.Exposure exposure = metrics.expose(config.bindHost(), () -> agents(cluster.getNow(null)), "vm '" + config.vmName() + "'", out);
        CompletableFuture<RunReport> run = Jobs.start(() -> {
            DsaCluster c = restartCheckpoint != null ? DsaCluster.restart(config, restartCheckpoint) : DsaCluster.local(config);
            if (exposure != null) for (DsaAgent a : agents(c)) exposure.register(a);
            cluster.complete(c);
            return c.run(program, args);
        });
        try {
            RunReport report = run.get(job.timeoutMs(), TimeUnit.MILLISECONDS);
            Jobs.printReport(out, report);
            Jobs.printOk(out);
            return 0;
        } catch (TimeoutException e) {
            List<String> where = new ArrayList<>();
            DsaCluster c = cluster.getNow(null);
            for (int node = 0; c != null && node < config.nodes(); node++) where.addAll(c.agent(node).workerLines());
            Jobs.printFailed(out, Jobs.timedOut(job.timeoutSeconds, where));
            return DsaCli.EXIT_FAILED;
        } catch (ExecutionException e) {
            Jobs.printFailed(out, Jobs.describe(e));
            return DsaCli.EXIT_FAILED;
        } finally {
            if (exposure != null) exposure.close();
            cluster.thenAccept(RunCommand::closeQuietly);
        }
    }

    // The agents of an in-process VM, or none before it exists.
    private static List<DsaAgent> agents(DsaCluster c) {
        List<DsaAgent> agents = new ArrayList<>();
        for (int node = 0; c != null && node < c.config().nodes(); node++) agents.add(c.agent(node));
        return agents;
    }

    /**
     * How a job ended: {@code failure} is null on success; {@code nodesKnow} says whether node 0
     * failed the job, so that the other nodes learn it and exit on their own (not after a time out, nor
     * when only the launcher saw a child die); {@code nodeLost} whether a node was lost (a restart
     * may follow), {@code atNs} when the launcher had the verdict (the start of a recovery).
     */
    record Verdict(String failure, boolean nodesKnow, boolean nodeLost, long atNs) {
        static final Verdict OK = new Verdict(null, true);

        Verdict(String failure, boolean nodesKnow) { this(failure, nodesKnow, false, 0); }

        static Verdict failed(String reason) { return new Verdict(reason, true); }
    }

    /**
     * After node 0's run or a child's failure completed first: the failure, or null when node 0's
     * run completed normally. A child that died first is followed a moment later by node 0's run
     * failing with the real reason (the monitor lost a connection to it), so that reason is waited
     * for, at most {@code runWaitMs}; when the child died before it connected, nobody but the
     * launcher knows, and the child's exit is the reason. Node 0's run may also fail just after the
     * child's exit completed the first wait and before this looks: that is a failure too, never an
     * exception (it once escaped here, past the restart after a lost node).
     */
    static Verdict failureAfterFirstEnd(CompletableFuture<RunReport> run, CompletableFuture<String> childFailure, long runWaitMs)
            throws InterruptedException {
        if (!run.isDone()) {
            try {
                run.get(runWaitMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return Verdict.failed(Jobs.describe(e));
            } catch (TimeoutException e) {
                // no better reason than the child's exit
            }
            return new Verdict(childFailure.getNow("a node failed"), false);
        }
        try {
            run.join();
            return null;
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return Verdict.failed(Jobs.describe(e));
        }
    }

    /**
     * The command line of child node {@code node}: same Java, same class path followed by
     * {@code programClassPath} ({@code --classpath}); the secret comes on its stdin
     * ({@code --secret-stdin}), never on the command line or in a file. Its progress lines count
     * the seconds from {@code startMs}, the launcher's start.
     */
    List<String> childCommand(int node, String monitorAddress, Class<? extends DsaProgram> programType, String programClassPath,
            long startMs) {
        List<String> command = new ArrayList<>();
        command.add(JvmCommand.javaExecutable());
        command.addAll(JvmCommand.releaseOptions());
        command.addAll(JvmCommand.childJvmOptions());
        command.addAll(nodeJvmOptions);   // after the inherited ones: where both set an option, --jvm-options wins
        if (aot != null) command.addAll(aot.jvmOptions(node));
        command.addAll(JvmCommand.inheritedProperties());
        command.add("-cp");
        command.add(nodeClassPath(programClassPath));
        command.add(MAIN_CLASS);
        command.add("node");
        command.addAll(List.of("--node", Integer.toString(node)));
        command.addAll(job.vmArguments());
        command.addAll(List.of("--monitor", monitorAddress, "--secret-stdin", "--job-start-ms", Long.toString(startMs)));
        if (metrics.on()) command.addAll(List.of("--metrics-port", "0"));   // each child serves its own node
        // The resolved class name, so a child never resolves a short name differently.
        command.add(programType.getName());
        command.addAll(job.args);
        return command;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // shutting down after the verdict: nothing to report
        }
    }
}
