package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.RestartChoreography;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code dsa run} with node processes on this machine: node 0 in the launcher's JVM, each other
 * node in a child JVM; with checkpoints, a VM that loses a node restarts from the newest complete
 * one, by the steps of {@link RestartChoreography} (docs/failures.md, "Restart"), as
 * {@link HostsRun} restarts one on hosts.
 */
final class ProcessesRun {
    /** The command line of a child node (see {@link RunCommand#childCommand}). */
    interface ChildCommand {
        List<String> of(int node, String monitorAddress, Class<? extends DsaProgram> programType, String programClassPath, long startMs);
    }

    private final JobOptions job;
    private final MetricsOption metrics;
    private final ChildCommand childCommand;
    private final PrintWriter out;
    private final PrintWriter err;
    private final RestartReport restart;

    ProcessesRun(JobOptions job, int maxRestarts, MetricsOption metrics, ChildCommand childCommand, PrintWriter out, PrintWriter err) {
        this.job = job;
        this.metrics = metrics;
        this.childCommand = childCommand;
        this.out = out;
        this.err = err;
        this.restart = new RestartReport(out, maxRestarts);
    }

    /**
     * Runs the VM from the start, or from {@code from} ({@code --restart-from}); with checkpoints, a
     * VM that loses a node restarts from the newest complete one.
     *
     * @return the exit code: 0 when every node succeeded
     */
    int run(Class<? extends DsaProgram> programType, ClassPathOption.Scope programs, CheckpointStore.Checkpoint from)
            throws InterruptedException, IOException {
        long startMs = System.currentTimeMillis();
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(job.timeoutMs());
        job.allNodesOnThisMachine();
        // The secret as hex: what the children read from their stdin, so both sides hold the same bytes.
        byte[] random = new byte[RunCommand.SECRET_BYTES];
        new SecureRandom().nextBytes(random);
        String secret = HexFormat.of().formatHex(random);
        Vm vm = new Vm(programType, programs, secret, from, startMs);
        for (int index = 1; ; index++) {
            RunCommand.Verdict verdict = vm.outcome(deadlineNs);
            if (verdict.failure() == null) {
                Jobs.printOk(out);
                return 0;
            }
            boolean restartable = verdict.nodeLost() && job.checkpointEvery > 0 && restart.mayRestart() && remainingMs(deadlineNs) > 0;
            CheckpointStore.Checkpoint newest = restartable ? Restarts.newest(job.checkpointDir, out) : null;
            if (newest == null) {
                if (restartable) out.println("not restarted: no complete checkpoint in " + job.checkpointDir + " yet");
                Jobs.printFailed(out, verdict.failure());
                return DsaCli.EXIT_FAILED;
            }
            restart.lost(verdict.failure(), verdict.atNs());
            LocalRestart steps = new LocalRestart(vm, newest, programType, programs, secret, startMs, deadlineNs);
            Choreography<RestartChoreography.State> machine = RestartChoreography.create("restart " + index + " of vm '" + job.vmName + "'",
                    steps, (state, cause) -> cause instanceof RuntimeException r ? r : new DsaException(Jobs.describe(cause), cause));
            try {
                machine.run();
            } catch (RuntimeException e) {
                if (machine.state() == RestartChoreography.State.FAILED || steps.next == null) {
                    restart.print("not restarted: " + Jobs.describe(e));
                    Jobs.printFailed(out, verdict.failure());
                    return DsaCli.EXIT_FAILED;
                }
                steps.next.failStarting(Jobs.describe(e));   // LOST: the new VM's failure is the next verdict
            }
            vm = steps.next;
        }
    }

    /**
     * The steps of a restart of node processes ({@link RestartChoreography}): the lost VM's verdict
     * already ended every node process and node 0's agent, the checkpoint is the newest complete
     * one, node 0 restarts here and the others as new processes, and node 0 says when the VM formed.
     */
    private final class LocalRestart implements RestartChoreography.Port {
        private final Vm lost;
        private final CheckpointStore.Checkpoint from;
        private final Class<? extends DsaProgram> programType;
        private final ClassPathOption.Scope programs;
        private final String secret;
        private final long startMs;
        private final long deadlineNs;
        Vm next;

        LocalRestart(Vm lost, CheckpointStore.Checkpoint from, Class<? extends DsaProgram> programType, ClassPathOption.Scope programs,
                String secret, long startMs, long deadlineNs) {
            this.lost = lost;
            this.from = from;
            this.programType = programType;
            this.programs = programs;
            this.secret = secret;
            this.startMs = startMs;
            this.deadlineNs = deadlineNs;
        }

        @Override
        public void stop() {
            lost.close();   // already done by its verdict, which ended the node processes and closed node 0 (idempotent)
            restart.stopped("");
        }

        @Override
        public void place() {
            restart.restarting(from.dir().toString(), from.manifest().epoch(), "");   // every node on this machine
        }

        @Override
        public void start() throws IOException, InterruptedException {
            next = new Vm(programType, programs, secret, from, startMs);
        }

        @Override
        public void awaitFormed() throws InterruptedException, ExecutionException, TimeoutException {
            next.agent.formed().get(remainingMs(deadlineNs), TimeUnit.MILLISECONDS);
            restart.recovered(from.manifest().epoch());
        }

        @Override
        public void abandon() {
            // nothing was started
        }
    }

    /** One VM of node processes: node 0's agent in this JVM and a child process per other node, until its verdict. */
    private final class Vm implements AutoCloseable {
        final DsaAgent agent;
        final ChildNodes children;
        final boolean resume;
        private final MetricsOption.Exposure exposure;
        private final DsaProgram program;
        /** Set when the restart that started it failed: its verdict. */
        private volatile String startFailure;
        private boolean closed;

        /** Starts node 0 (from {@code from}, if not null) and the other nodes' processes. */
        Vm(Class<? extends DsaProgram> programType, ClassPathOption.Scope programs, String secret, CheckpointStore.Checkpoint from,
                long startMs) throws IOException, InterruptedException {
            program = ProgramCatalog.instantiate(programType);
            resume = from != null;
            DsaConfig config = job.config().nodeId(0).port(0).bindHost(DsaConfig.DEFAULT_BIND_HOST)
                    .secret(secret.getBytes(StandardCharsets.US_ASCII)).progress(new ProgressPrinter(out, startMs)).build();
            agent = from == null ? DsaAgent.start(config) : DsaAgent.restart(config, from);
            children = new ChildNodes(out, err);
            MetricsOption.Exposure exposed = null;
            try {
                exposed = metrics.expose(config.bindHost(), () -> List.of(agent), "node 0", out);
                if (exposed != null) exposed.register(agent);
                for (int node = 1; node < job.nodes; node++) {
                    List<String> command = childCommand.of(node, agent.address(), programType, programs.joined(), startMs);
                    if (from != null) {
                        command.addAll(command.indexOf(programType.getName()), List.of(NodeCommand.RESTART_OPTION,
                                from.dir().toAbsolutePath().toString()));
                    }
                    children.start(node, command, (secret + "\n").getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                exposure = exposed;
                close();
                throw e;
            }
            exposure = exposed;
        }

        /** The restart that started this VM failed: its verdict is {@code why}, a lost node's (the launcher may restart again). */
        void failStarting(String why) { startFailure = why; }

        /** Runs node 0's part, waits for the verdict, ends every node process and closes node 0. */
        RunCommand.Verdict outcome(long deadlineNs) throws InterruptedException {
            try {
                RunCommand.Verdict verdict = startFailure != null ? new RunCommand.Verdict(startFailure, false)
                        : await(deadlineNs);
                long verdictNs = System.nanoTime();
                if (verdict.failure() == null) return verdict;
                // Lost, before any node process is ended here: one killed by a signal, or the failure names a lost node.
                boolean lost = children.endedBySignal() || Restarts.namesLostNode(verdict.failure());
                // The lost node cannot say why, nor exit on its own when it is stopped or cut off: no grace for it.
                children.kill(Restarts.lostNode(verdict.failure()));
                if (verdict.nodesKnow()) {
                    // The other nodes learn of the failure too: let them say why and exit on their own.
                    children.awaitExit(Math.min(ChildNodes.GRACE_MS, remainingMs(deadlineNs)));
                }
                children.destroyAll();
                children.drainOutput();   // the children's last words before the verdict
                return new RunCommand.Verdict(verdict.failure(), verdict.nodesKnow(), lost, verdictNs);
            } finally {
                close();
            }
        }

        // Runs node 0's part and waits for the children.
        private RunCommand.Verdict await(long deadlineNs) throws InterruptedException {
            List<String> args = List.copyOf(job.args);
            CompletableFuture<RunReport> run = Jobs.start(() -> resume ? agent.resume(program, args) : agent.run(program, args));
            CompletableFuture<Object> first = CompletableFuture.anyOf(run, children.firstFailure());
            try {
                first.get(remainingMs(deadlineNs), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return new RunCommand.Verdict(Jobs.timedOut(job.timeoutSeconds, agent.vmWorkerLines(Jobs.WORKERS_ANSWER_MS)), false);
            } catch (ExecutionException e) {
                return RunCommand.Verdict.failed(Jobs.describe(e));   // node 0's run threw: the job's first failure
            }
            RunCommand.Verdict failed = RunCommand.failureAfterFirstEnd(run, children.firstFailure(),
                    Math.min(job.failureTimeoutMs, remainingMs(deadlineNs)));
            if (failed != null) return failed;
            RunReport report = run.join();
            String exit = children.awaitExit(Math.max(remainingMs(deadlineNs), ChildNodes.GRACE_MS));
            children.drainOutput();
            Jobs.printReport(out, report);
            return exit == null ? RunCommand.Verdict.OK : RunCommand.Verdict.failed(exit);
        }

        /** Ends every node process left and closes node 0's agent and its metrics. Idempotent. */
        @Override
        public synchronized void close() {
            if (closed) return;
            closed = true;
            children.close();   // ends every node process left
            if (exposure != null) exposure.close();
            try {
                agent.close();
            } catch (RuntimeException e) {
                // shutting down after the verdict: nothing to report
            }
        }
    }

    private static long remainingMs(long deadlineNs) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    }
}
