package io.dsa.agent.cli;

import io.dsa.DsaProgram;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code dsa run}'s side of checkpoints and restarts (docs/failures.md, "Checkpoints" and
 * "Restart"): the checkpoint directory and the resumability check before a run, the job a
 * {@code --restart-from} directory records, and whether a failed attempt lost a node.
 */
final class Restarts {
    /** Restarts after lost nodes, by default. */
    static final int DEFAULT_MAX_RESTARTS = 3;
    /** Largest {@code --max-restarts}. */
    static final int MAX_RESTARTS = 100;

    private Restarts() {}

    /**
     * {@code --restart-from DIR}: the newest complete checkpoint there (refusals printed), with the
     * job it records filled into {@code job}: program, arguments, nodes, threads, VM name, and the
     * checkpoint directory and interval (unless given).
     *
     * @return the checkpoint, or null if DIR holds no complete one
     * @throws picocli.CommandLine.ParameterException if a given option differs from what the checkpoint records
     */
    static CheckpointStore.Checkpoint resolve(CommandSpec spec, JobOptions job, Path dir, PrintWriter out) {
        if (!Files.isDirectory(dir)) throw Checks.usage(spec, "--restart-from " + dir + ": not a directory");
        CheckpointStore.Checkpoint cp = newest(dir, out);
        if (cp == null) return null;
        CheckpointManifest m = cp.manifest();
        if (job.program != null && !job.program.equals(m.program())
                && !RunCommand.resolveProgram(spec, job.program).getName().equals(m.program())) {
            throw Checks.usage(spec, "program " + job.program + " differs from the checkpoint's " + m.program() + " (" + cp.dir()
                    + "); leave it out");
        }
        if (job.program != null && !job.args.equals(m.args())) {
            throw Checks.usage(spec, "arguments " + job.args + " differ from the checkpoint's " + m.args() + "; leave them out");
        }
        requireSame(spec, "--nodes", job.nodes, m.nodes(), cp);
        requireSame(spec, "--threads", job.threads, m.threadsPerNode(), cp);
        if (given(spec, "--vm") && !job.vmName.equals(m.vmName())) {
            throw Checks.usage(spec, "--vm " + job.vmName + " differs from the checkpoint's " + m.vmName());
        }
        if (given(spec, "--checkpoint-dir") && !job.checkpointDir.equals(dir)) {
            throw Checks.usage(spec, "--checkpoint-dir with --restart-from: checkpoints go on into " + dir);
        }
        job.program = m.program();
        job.args = new ArrayList<>(m.args());
        job.nodes = m.nodes();
        job.threads = m.threadsPerNode();
        job.vmName = m.vmName();
        job.checkpointDir = dir;
        if (!given(spec, "--checkpoint-every")) job.checkpointEvery = m.every();
        out.println("restarting from " + cp.dir() + ": " + m.program() + " " + String.join(" ", m.args()) + " on " + m.nodes()
                + " nodes x " + m.threadsPerNode() + " threads at epoch " + m.epoch());
        out.flush();
        return cp;
    }

    private static void requireSame(CommandSpec spec, String option, int given, int recorded, CheckpointStore.Checkpoint cp) {
        if (given(spec, option) && given != recorded) {
            throw Checks.usage(spec, option + " " + given + " differs from the checkpoint's " + recorded + " (" + cp.dir() + ")");
        }
    }

    private static boolean given(CommandSpec spec, String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** @return the newest complete checkpoint in {@code dir}, printing each one refused; null if none */
    static CheckpointStore.Checkpoint newest(Path dir, PrintWriter out) {
        CheckpointStore.Checkpoint cp = CheckpointStore.newest(dir, refused -> {
            out.println(refused);
            out.flush();
        });
        return cp;
    }

    /**
     * Before a run with {@code --checkpoint-every}: refuses a program that is not resumable, makes
     * the checkpoint directory (a fresh one when none is given) and names it.
     *
     * @throws picocli.CommandLine.ParameterException if the program is not resumable, or the directory cannot be made
     */
    static void prepareCheckpoints(CommandSpec spec, JobOptions job, Class<? extends DsaProgram> programType, PrintWriter out) {
        if (job.checkpointEvery == 0) {
            if (job.checkpointDir != null) throw Checks.usage(spec, "--checkpoint-dir needs --checkpoint-every N");
            if (job.noCheckpointSync) throw Checks.usage(spec, "--no-checkpoint-sync needs --checkpoint-every N");
            return;
        }
        if (!ProgramCatalog.instantiate(programType).resumable()) {
            throw Checks.usage(spec, CheckpointStore.notResumable(programType.getName(), job.checkpointEvery));
        }
        try {
            job.checkpointDir = job.checkpointDir == null ? Files.createTempDirectory("dsa-checkpoints-")
                    : Files.createDirectories(job.checkpointDir);
        } catch (IOException e) {
            throw Checks.usage(spec, "--checkpoint-dir " + job.checkpointDir + ": cannot make it (" + e + ")");
        }
        job.checkpointDir = job.checkpointDir.toAbsolutePath();
        out.println("checkpoints: every " + job.checkpointEvery + " global barriers into " + job.checkpointDir);
        if (job.noCheckpointSync) out.println("checkpoint files are not forced to disk (--no-checkpoint-sync)");
        out.flush();
    }

    /**
     * Before a run on hosts with {@code --checkpoint-every}: refuses a program that is not
     * resumable, a VM whose nodes all run on one host (no buddy could keep a copy on another) and a
     * relative {@code --checkpoint-dir} (each host makes it), and says where the checkpoints go.
     *
     * @throws picocli.CommandLine.ParameterException naming the bad value
     */
    static void prepareHostCheckpoints(CommandSpec spec, JobOptions job, Class<? extends DsaProgram> programType,
            java.util.List<io.dsa.agent.HostPort> hosts, PrintWriter out) {
        if (job.checkpointEvery == 0) {
            if (job.checkpointDir != null) throw Checks.usage(spec, "--checkpoint-dir needs --checkpoint-every N");
            if (job.noCheckpointSync) throw Checks.usage(spec, "--no-checkpoint-sync needs --checkpoint-every N");
            return;
        }
        if (!ProgramCatalog.instantiate(programType).resumable()) {
            throw Checks.usage(spec, CheckpointStore.notResumable(programType.getName(), job.checkpointEvery));
        }
        HostPlacement placement = HostPlacement.roundRobin(hosts, job.nodes);
        if (placement.buddies() == null) {
            throw Checks.usage(spec, "--checkpoint-every with --hosts needs nodes on two hosts or more: each node's checkpoint is copied"
                    + " to a buddy node on another host, and all " + job.nodes + " node(s) run on " + placement.host(0)
                    + " (--hosts " + String.join(",", hosts.stream().map(Object::toString).toList()) + ", --nodes " + job.nodes + ")");
        }
        if (job.checkpointDir != null && !job.checkpointDir.isAbsolute()) {
            throw Checks.usage(spec, "--checkpoint-dir " + job.checkpointDir + " with --hosts: an absolute path is needed (each host makes"
                    + " it on its own disk)");
        }
        out.println("checkpoints: every " + job.checkpointEvery + " global barriers into " + (job.checkpointDir != null
                ? job.checkpointDir + " on each host" : "checkpoints-" + job.vmName + " in each host's private work directory (host-PID)")
                + ", each node's file also copied to its buddy on another host (" + buddyList(placement) + ")");
        if (job.noCheckpointSync) out.println("checkpoint files are not forced to disk (--no-checkpoint-sync)");
        out.flush();
    }

    private static String buddyList(HostPlacement placement) {
        int[] buddies = placement.buddies();
        java.util.List<String> pairs = new ArrayList<>();
        for (int k = 0; k < buddies.length; k++) pairs.add(k + "->" + buddies[k]);
        return String.join(", ", pairs);
    }

    /** @return whether a job's failure says it lost a node (the failure detector's or a closed connection's verdict) */
    static boolean namesLostNode(String failure) {
        return failure.startsWith("lost node ") || failure.contains(" lost node ");
    }

    private static final java.util.regex.Pattern LOST_NODE = java.util.regex.Pattern.compile("(?:^| )lost node (\\d+) ");

    /**
     * @return the node a job's failure names as lost ({@code lost node 1 at ...}, {@code node 2 lost node 1 at ...}: the
     *         first one named), or -1 when it names none
     */
    static int lostNode(String failure) {
        java.util.regex.Matcher m = LOST_NODE.matcher(failure);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
