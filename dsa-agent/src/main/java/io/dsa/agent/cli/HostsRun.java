package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.HostPort;
import io.dsa.agent.RunReport;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.VmSettingOptions;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.RestartChoreography;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code dsa run --hosts}: forms the VM on running {@code dsa host} daemons. Node k goes to host
 * {@code k mod hosts}; node 0 first, so the others learn the monitor's address. Each host gets
 * the program's JAR over the authenticated channel and answers with a stop token, kept here. Waits
 * for every node's verdict; on failure or timeout, asks every host to stop the VM with its token.
 * When a node's JVM ended on its own (it exited, ran out of memory, crashed), that is the reason
 * printed: the other nodes' failures follow from it.
 */
final class HostsRun {
    /** How long, after the first failure, to wait for the other nodes' verdicts to find the cause. */
    static final long CAUSE_GRACE_MS = 3_000;
    /** How long the launcher waits for a host that refuses connections (not started yet) before it gives up. */
    static final long HOST_WAIT_MS = 30_000;
    /** How long an interrupted launcher waits for its hosts to stop the VM before it exits. */
    static final long STOP_ON_EXIT_MS = 5_000;
    /** {@link HostsAttempt#restartEpoch}: node 0 restarts from its host's newest complete checkpoint, the others from its epoch. */
    static final long NEWEST = -1;
    /** How long a host has to take the connection and answer a stop of the VM (the hosts are asked in parallel). */
    static final long STOP_VM_MS = 2_000;

    private final JobOptions job;
    private final List<HostPort> hosts;
    private final byte[] secret;
    private final long heapBytes;
    private final int cpus;
    private final PrintWriter out;
    /** Prints the nodes' progress lines with the seconds since this launcher started the job. */
    private final ProgressPrinter progress;
    /** The restart after a lost node or host (with checkpoints; docs/failures.md, "Restart on hosts"). */
    private final RestartReport restart;
    /** {@code --spare}: hosts that take lost hosts' places, and those not taken yet (launcher thread only). */
    private final List<HostPort> spares;
    private final List<HostPort> unusedSpares;
    /** {@code --restart-from}: the first VM restarts from the newest complete checkpoint on node 0's host. */
    private final boolean restartFromNewest;
    /** The VM being formed or run: the first, or the one restarted last. Events of older ones are ignored. */
    private volatile HostsAttempt current;
    /** VMs formed so far (launcher thread only): each takes the next index, so that its job ids are its own. */
    private int attempts;
    /** The epoch of the newest complete checkpoint node 0 reported (0: none yet). */
    private volatile long checkpointEpoch;
    /** Where node 0's host keeps the checkpoints, as it reported with the first one. */
    private volatile String checkpointWhere;
    /** The clones that keep their node's part of the newest complete checkpoint (or the one before) in memory. */
    private volatile List<HostPlacement.CurrentClone> currentClones = List.of();

    /**
     * @param heapBytes each node's heap, 0 for the hosts' default
     * @param cpus each node's processors, 0 for the hosts' default
     * @param spares hosts that take lost hosts' places at a restart ({@code --spare}), in order
     * @param maxRestarts restarts after lost nodes with checkpoints ({@code --max-restarts})
     * @param restartFromNewest {@code --restart-from}: node 0 restarts from the newest complete checkpoint in
     *        {@code job.checkpointDir} on its host, the other nodes from the same epoch on theirs
     */
    HostsRun(JobOptions job, List<HostPort> hosts, List<HostPort> spares, byte[] secret, long heapBytes, int cpus, int maxRestarts,
            boolean restartFromNewest, PrintWriter out) {
        this.spares = List.copyOf(spares);
        this.unusedSpares = new ArrayList<>(spares);
        this.restartFromNewest = restartFromNewest;
        this.job = job;
        this.hosts = hosts;
        this.secret = secret;
        this.heapBytes = heapBytes;
        this.cpus = cpus;
        this.out = out;
        this.progress = new ProgressPrinter(out, System.currentTimeMillis());
        this.restart = new RestartReport(out, maxRestarts);
    }

    /** @return the exit code: 0 when every node succeeded */
    int run(Class<? extends DsaProgram> programType, byte[] jar) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(job.timeoutMs());
        ShippedJar shipped = new ShippedJar(jar);   // its digest is computed while we connect
        try (HostClient client = HostClient.open(secret, io.dsa.agent.DsaConfig.DEFAULT_BIND_HOST, Math.min(job.timeoutMs(), 30_000),
                job.security.value, job.failureTimeoutMs)) {
            client.onJobEvent(this::onEvent);
            // Ctrl-C or SIGTERM while the job runs: stop the VM on every host with its tokens first.
            Thread onInterrupt = new Thread(() -> stopWithin(client, STOP_ON_EXIT_MS), "dsa-run-stop");
            Runtime.getRuntime().addShutdownHook(onInterrupt);
            try {
                return runOn(client, programType, shipped, deadlineNs);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(onInterrupt);
                } catch (IllegalStateException e) {
                    // the JVM is exiting: the hook runs
                }
            }
        }
    }

    /** @return node k's checkpoint buddies for {@code placement}, null without checkpoints or when one host runs every node */
    private int[] buddies(HostPlacement placement) { return job.checkpointEvery > 0 ? placement.buddies() : null; }

    // Runs the VM; with checkpoints, a VM that lost a node or host restarts from the newest complete one, as RestartChoreography says.
    private int runOn(HostClient client, Class<? extends DsaProgram> programType, ShippedJar jar, long deadlineNs)
            throws InterruptedException {
        client.onDisconnect(peer -> {
            HostsAttempt a = current;
            a.lostPeers.add(peer);
            String why = "lost the connection to host " + peer + " (closed, or silent for " + job.failureTimeoutMs + " ms)";
            for (CompletableFuture<HostJobEventMessage> f : a.finished.values()) f.completeExceptionally(new DsaException(why));
            for (CompletableFuture<HostJobEventMessage> f : a.started.values()) f.completeExceptionally(new DsaException(why));
        });
        HostPlacement placement = HostPlacement.roundRobin(hosts, job.nodes);
        current = new HostsAttempt(attempts++, placement, null, buddies(placement), restartFromNewest ? NEWEST : 0, Map.of());
        try {
            client.dialAll(java.util.stream.Stream.concat(hosts.stream(), spares.stream()).toList());   // every handshake at once
            for (HostPort h : hosts) connect(client, h, deadlineNs);   // authenticate everywhere before starting anything
            for (HostPort h : spares) connect(client, h, deadlineNs);
        } catch (RuntimeException e) {
            Jobs.printFailed(out, Jobs.describe(e));
            return DsaCli.EXIT_FAILED;
        }
        RuntimeException lostRestart = null;   // a restarted VM that failed while starting or forming: its failure is the verdict
        for (int index = 1; ; index++) {
            HostsAttempt a = current;
            String failure;
            try {
                if (lostRestart != null) throw lostRestart;
                if (!a.launched) launch(client, a, programType, jar, deadlineNs);
                RunReport report = outcome(client, a, deadlineNs);
                VmStop.inParallel(client, job.vmName, cloneStops(a), new long[0], STOP_VM_MS, out);   // none is promoted
                Jobs.printReport(out, report);
                Jobs.printOk(out);
                return 0;
            } catch (TimeoutException e) {
                List<String> where = HostWorkers.ask(client, a.placement.hosts(), job.vmName);   // before the stop ends them
                stopEverywhere(client, a);
                Jobs.printFailed(out, Jobs.timedOut(job.timeoutSeconds, where));
                return DsaCli.EXIT_FAILED;
            } catch (RuntimeException e) {
                failure = cause(a, e, deadlineNs);
                lostRestart = null;
            }
            long verdictNs = System.nanoTime();
            boolean restartable = a.nodeLost() && job.checkpointEvery > 0 && restart.mayRestart() && remainingMs(deadlineNs) > 0;
            if (!restartable || checkpointEpoch == 0) {
                if (restartable) out.println("not restarted: no complete checkpoint yet");
                stopEverywhere(client, a);
                Jobs.printFailed(out, failure);
                return DsaCli.EXIT_FAILED;
            }
            restart.lost(failure, verdictNs);
            HostsRestart steps = new HostsRestart(client, a, programType, jar, deadlineNs);
            Choreography<RestartChoreography.State> machine = RestartChoreography.create("restart " + index + " of vm '" + job.vmName + "'",
                    steps, (state, cause) -> cause instanceof RuntimeException r ? r : new DsaException(Jobs.describe(cause), cause));
            try {
                machine.run();
            } catch (RuntimeException e) {
                if (machine.state() == RestartChoreography.State.FAILED) {
                    restart.print("not restarted: " + Jobs.describe(e));
                    Jobs.printFailed(out, failure);
                    return DsaCli.EXIT_FAILED;
                }
                lostRestart = e;   // LOST: the new VM is current; its failure goes the way of any other
            }
        }
    }

    /**
     * The steps of a restart on hosts ({@link RestartChoreography}): the VM is stopped on every
     * host that survived but for the clones that take lost nodes' places, the nodes are placed
     * (lost hosts' nodes on their buddies' hosts or their clones' hosts; spares named as targets),
     * started from the checkpoint node 0 reported last, and node 0 says when the VM formed.
     */
    private final class HostsRestart implements RestartChoreography.Port {
        private final HostClient client;
        private final HostsAttempt lost;
        private final Class<? extends DsaProgram> programType;
        private final ShippedJar jar;
        private final long deadlineNs;
        private final long epoch = checkpointEpoch;
        private final java.util.Set<HostPort> lostHosts;
        private Map<Integer, HostPlacement.CurrentClone> promoted = Map.of();
        /** Spares taking the lost hosts' places, chosen once. */
        private Map<HostPort, HostPort> replacements;

        HostsRestart(HostClient client, HostsAttempt lost, Class<? extends DsaProgram> programType, ShippedJar jar, long deadlineNs) {
            this.client = client;
            this.lost = lost;
            this.programType = programType;
            this.jar = jar;
            this.deadlineNs = deadlineNs;
            this.lostHosts = lost.placement.hostsAmong(lost.lostPeers);
        }

        @Override
        public void stop() {
            // a clone that keeps a lost node's checkpoint in memory takes its place: its JVM is not stopped
            promoted = lost.placement.promotions(lostHosts, currentClones, h -> reachable(client, h));
            stopEverywhere(client, lost, promoted.values().stream().mapToLong(HostPlacement.CurrentClone::cloneId).toArray());
            restart.stopped(lostHosts.isEmpty() ? "" : lostHosts.toString());
        }

        @Override
        public void place() {
            HostPlacement next = lost.placement.without(lostHosts, lost.buddies, promoted);
            // Spares take the lost hosts' places: the nodes restart where their copies are, then move there.
            if (replacements == null) {
                replacements = new java.util.LinkedHashMap<>();
                for (HostPort h : lostHosts) if (!unusedSpares.isEmpty()) replacements.put(h, unusedSpares.remove(0));
            }
            HostPlacement target = replacements.isEmpty() ? null : lost.placement.replacing(replacements).with(0, next.host(0));
            for (HostPlacement.CurrentClone c : promoted.values()) {
                if (target != null) target = target.with(c.node(), c.host());   // it stays where its clone was
                restart.print("clone " + c.cloneId() + " of node " + c.node() + " on host " + c.host() + " takes node " + c.node()
                        + "'s place: it keeps node " + c.node() + "'s checkpoint of epoch " + epoch + " in memory");
            }
            int[] buddies = buddies(target != null ? target : next);
            boolean again = current != lost;   // placed before: a promotion failed, and this is its fallback to the files
            current = new HostsAttempt(attempts++, next, target, buddies, epoch, promoted);
            currentClones = List.of();   // the restarted VM has none (a promoted one is its node now; the others are stopped)
            String where = checkpointWhere == null ? "epoch-" + epoch : checkpointWhere + "/epoch-" + epoch;
            if (again) restart.restartingAgain(where, epoch, next.describe());
            else restart.restarting(where, epoch, next.describe());
            if (buddies == null) {
                restart.print("checkpoints go on in the directory of host " + next.host(0) + " alone: every node runs there now, so no"
                        + " copy can be kept on another host");
            }
        }

        @Override
        public void start() throws InterruptedException, TimeoutException {
            try {
                launchStarted();
            } catch (RuntimeException e) {
                if (promoted.isEmpty()) throw e;
                // a clone gone or whose copy does not verify: the nodes restart from their files, where a copy survives
                restart.print("the promotion failed (" + Jobs.describe(e) + "): the nodes restart from their checkpoint files instead");
                stopEverywhere(client, current);
                promoted = Map.of();
                place();
                launchStarted();
            }
        }

        private void launchStarted() throws InterruptedException, TimeoutException {
            launch(client, current, programType, jar, deadlineNs);
            HostsAttempt a = current;
            for (int n = 0; n < job.nodes; n++) await(a.started.get(n), deadlineNs);
        }

        @Override
        public void awaitFormed() throws InterruptedException, TimeoutException {
            restart.recovered(await(current.resumed, deadlineNs));
        }

        @Override
        public void abandon() {
            // nothing was started: the lost VM is stopped already (or being stopped), and the run fails
        }
    }

    /**
     * Once the restarted VM resumed, moves each node that a spare takes to it by live migration
     * (docs/runtime.md, "Live migration"): they restarted on their buddies' hosts, which hold their copies.
     * Node 0 is not moved (its target is where it restarted): a moved node's events reach the launcher
     * through its old host, which takes any event but a start or a progress line for the outcome, and
     * node 0 reports every checkpoint.
     */
    private void moveToSpares(HostClient client, HostsAttempt a, long deadlineNs) throws InterruptedException, TimeoutException {
        try {
            a.resumed.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new DsaException("the restarted VM did not resume: " + e.getCause().getMessage(), e.getCause());
        }
        List<HostPort> vmHosts = new ArrayList<>(new java.util.LinkedHashSet<>(a.placement.hosts()));
        for (HostPort h : a.target.hosts()) if (!vmHosts.contains(h)) vmHosts.add(h);
        for (int n = 0; n < job.nodes; n++) {
            HostPort to = a.target.host(n);
            if (to.equals(a.placement.host(n))) {
                if (n == 0 && replaced(a, 0)) out.println("node 0 stays on host " + to + ": node 0 is not moved to a spare");
                continue;
            }
            io.dsa.agent.TransferReport report = client.migrate(to, io.dsa.agent.DsaAgent.agentId(job.vmName, n), a.placement.host(n), vmHosts);
            out.println("spare " + to + " takes node " + n + ": " + report.describe("moved"));
            out.flush();
        }
        a.placement = a.target;
    }

    // Whether node `node` ran on a host that a spare replaces (its restart placement differs from where the first VM had it).
    private boolean replaced(HostsAttempt a, int node) { return !a.placement.host(node).equals(HostPlacement.roundRobin(hosts, job.nodes).host(node)); }

    // Forms the VM of `a`: node 0 first, then the others with its address. A host that keeps the jar gets its name, not its bytes.
    private void launch(HostClient client, HostsAttempt a, Class<? extends DsaProgram> programType, ShippedJar jar, long deadlineNs)
            throws InterruptedException, TimeoutException {
        a.launched = true;
        jar.ask(client, a.placement.hosts(), out);
        String monitor = null;
        for (int n = 0; n < job.nodes; n++) {
            HostPort h = a.host(n);
            client.submit(h, new HostJobMessage(a.base + n, job.vmName, n, job.nodes, job.threads, monitor,
                    programType.getName(), List.copyOf(job.args), jar.options(options(a, n), h), jar.bytes(h), heapBytes, cpus));
            if (n == 0) {
                HostJobEventMessage e = await(a.started.get(0), deadlineNs);
                monitor = e.text();
                out.println("node 0 (monitor) on host " + h + " at " + monitor);
                if (a.restartEpoch == NEWEST) {
                    out.println("restarting from " + checkpointWhere + "/epoch-" + checkpointEpoch + ", the newest complete checkpoint on"
                            + " node 0's host; the other nodes from the same epoch on theirs");
                }
                out.flush();
            }
        }
    }

    // Waits for every node's verdict on the VM of `a` (after the moves to spares, if any).
    private RunReport outcome(HostClient client, HostsAttempt a, long deadlineNs) throws InterruptedException, TimeoutException {
        if (a.target != null) moveToSpares(client, a, deadlineNs);
        RunReport report = null;
        for (int n = 0; n < job.nodes; n++) {
            HostJobEventMessage e = await(a.finished.get(n), deadlineNs);
            if (n == 0) report = new RunReport(job.nodes, job.threads, e.lines(), e.timings()[0], e.timings()[1]);
        }
        return report;
    }

    /**
     * Connects to {@code host}, waiting up to {@value #HOST_WAIT_MS} ms for it to listen: a host
     * started a moment before ({@code dsa host ... &} typed on the line above) may not yet.
     */
    private void connect(HostClient client, HostPort host, long deadlineNs) throws InterruptedException {
        long waitUntil = Math.min(deadlineNs, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOST_WAIT_MS));
        boolean said = false;
        while (true) {
            try {
                client.connect(host);
                return;
            } catch (RuntimeException e) {
                if (!refused(e) || System.nanoTime() > waitUntil) throw e;
                if (!said) {
                    out.println("waiting for host " + host + " to listen...");
                    out.flush();
                    said = true;
                }
                Thread.sleep(VmLookup.POLL_MS);   // nothing to wait on but the next try
            }
        }
    }

    /** @return whether {@code e} says no one listens at the address (yet), or not in time: a host still starting */
    static boolean refused(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof java.net.ConnectException) return true;
            String m = c.getMessage();
            if (m != null && (m.contains("Connection refused") || m.contains(": no connection after "))) return true;
        }
        return false;
    }

    // In a shutdown hook: the stop may not hold up the exit for long.
    private void stopWithin(HostClient client, long timeoutMs) {
        Thread stop = new Thread(() -> stopEverywhere(client, current), "dsa-run-stop-vm");
        stop.setDaemon(true);
        stop.start();
        try {
            stop.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // The job options of node `node` of `a`: the VM's, the threads of this VM on its host (and its share of the host's cores), and its checkpoints' settings.
    private List<String> options(HostsAttempt a, int node) {
        List<String> options = new ArrayList<>(VmSettingOptions.of(job.config().checkpoints(0, null).build()));
        options.add("hosts=" + String.join(",", a.placement.hosts().stream().map(HostPort::toString).toList()));
        options.add("machineThreads=" + (job.machineThreads > 0 ? job.machineThreads : a.placement.machineThreads(node, job.threads)));
        if (job.bindCores) {   // the node's share of its host's cores, not of every node's
            int[] share = a.placement.coreShare(node);
            options.add("coreShare=" + share[0] + "/" + share[1]);
        }
        if (job.checkpointEvery > 0) {
            options.add("checkpointEvery=" + job.checkpointEvery);
            if (a.buddies != null) {
                options.add("buddies=" + String.join(",", java.util.Arrays.stream(a.buddies).mapToObj(Integer::toString).toList()));
            }
        }
        if (job.checkpointDir != null && (job.checkpointEvery > 0 || a.restartEpoch != 0)) options.add("checkpointDir=" + job.checkpointDir);
        if (a.restartEpoch == NEWEST) options.add("restartEpoch=" + (node == 0 ? "newest" : Long.toString(checkpointEpoch)));
        else if (a.restartEpoch > 0) options.add("restartEpoch=" + a.restartEpoch);
        HostPlacement.CurrentClone clone = a.promoted.get(node);
        if (clone != null) options.add("promoteClone=" + clone.cloneId());
        return options;
    }

    private void onEvent(HostJobEventMessage e) {
        HostsAttempt a = current;
        int node = a == null ? -1 : a.node(e.jobId());
        // A job of a VM stopped before, or a clone's (its job id is the copied node's, its node id its own).
        if (node < 0 || e.nodeId() != node) return;
        CompletableFuture<HostJobEventMessage> s = a.started.get(node);
        CompletableFuture<HostJobEventMessage> f = a.finished.get(node);
        switch (e.event()) {
            case HostJobEventMessage.ACCEPTED -> {
                a.stopTokens.put(node, e.text());
                for (String note : e.lines()) {
                    out.println("node " + node + " on host " + a.host(node) + ": " + note);
                    out.flush();
                }
            }
            case HostJobEventMessage.STARTED -> s.complete(e);
            case HostJobEventMessage.PROGRESS -> progress.onProgress(node, e.text());
            case HostJobEventMessage.CHECKPOINTED -> onCheckpointed(a, e);
            case HostJobEventMessage.RESUMED -> a.resumed.complete(Long.parseLong(e.text()));
            case HostJobEventMessage.DONE -> f.complete(e);
            default -> {
                a.failures.add(e);
                DsaException failure = new DsaException(describe(e));
                s.completeExceptionally(failure);
                f.completeExceptionally(failure);
            }
        }
    }

    // Node 0 completed a checkpoint: the newest one a restart would start from.
    private void onCheckpointed(HostsAttempt a, HostJobEventMessage e) {
        long epoch = Long.parseLong(e.text());
        if (epoch <= checkpointEpoch) return;
        boolean restartsFromIt = a.restartEpoch == NEWEST && !a.started.get(0).isDone();   // node 0's newest, for --restart-from
        if (checkpointWhere == null && !e.lines().isEmpty() && !restartsFromIt) {
            out.println("first complete checkpoint at epoch " + epoch + ": " + e.lines().get(0) + "/epoch-" + epoch + " on host " + a.host(0)
                    + ", and a copy of each node's file on its buddy's host");
            out.flush();
        }
        if (!e.lines().isEmpty()) checkpointWhere = e.lines().get(0);
        List<HostPlacement.CurrentClone> clones = HostPlacement.CurrentClone.of(e.timings(),
                e.lines().isEmpty() ? List.of() : e.lines().subList(1, e.lines().size()), out);
        for (HostPlacement.CurrentClone c : clones) {
            if (currentClones.stream().noneMatch(c::equals)) {
                out.println("clone " + c.cloneId() + " of node " + c.node() + " on host " + c.host() + " keeps node " + c.node()
                        + "'s checkpoint of epoch " + epoch + " in memory: it can take the node's place at a restart");
                out.flush();
            }
        }
        currentClones = List.copyOf(clones);
        checkpointEpoch = epoch;
    }

    // Whether the launcher reaches `host`, which runs a clone to promote (it need not be one of --hosts).
    private boolean reachable(HostClient client, HostPort host) {
        try {
            client.connect(host);
            return true;
        } catch (RuntimeException e) {
            out.println("a clone on host " + host + " cannot be promoted: " + Jobs.describe(e));
            return false;
        }
    }

    /**
     * The reason to print for a failed job: a node whose JVM ended on its own caused it, so once
     * the nodes' verdicts are in (or a short grace passed) that one wins; else the first failure
     * that arrived.
     */
    private String cause(HostsAttempt a, RuntimeException first, long deadlineNs) throws InterruptedException {
        long graceMs = Math.min(CAUSE_GRACE_MS, remainingMs(deadlineNs));
        try {
            CompletableFuture.allOf(a.finished.values().toArray(new CompletableFuture<?>[0])).get(graceMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // some failed or are still running: what arrived is enough
        }
        for (HostJobEventMessage f : a.failures) {
            if (f.event() == HostJobEventMessage.EXITED) return f.text();
        }
        return a.failures.isEmpty() ? Jobs.describe(first) : describe(a.failures.get(0));
    }

    private static long remainingMs(long deadlineNs) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    }

    private static String describe(HostJobEventMessage e) {
        return e.text().startsWith("node ") ? e.text() : "node " + e.nodeId() + ": " + e.text();
    }

    private static <T> T await(CompletableFuture<T> f, long deadlineNs)
            throws InterruptedException, TimeoutException {
        try {
            return f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new DsaException(e.getCause().toString(), e.getCause());
        }
    }

    /**
     * Each host that took a node of {@code a} gets STOP_VM with the token it returned for it, all at once
     * (but a host known lost): a host that is stopped or cut off holds up the others by nothing, and the
     * whole stop by at most {@link #STOP_VM_MS} (its nodes, lost to the others, end with the job anyway).
     */
    private void stopEverywhere(HostClient client, HostsAttempt a) { stopEverywhere(client, a, new long[0]); }

    /**
     * @return the stops of the clones that keep checkpoint copies of the VM's nodes, on their hosts
     *         (which need not be the VM's): a clone not promoted would otherwise wait for a promotion
     *         ({@code ChildAgent.PROMOTION_WAIT_MS}). A clone has the stop token of the node it copies.
     */
    private java.util.Set<VmStop.Stop> cloneStops(HostsAttempt a) {
        java.util.Set<VmStop.Stop> stops = new java.util.LinkedHashSet<>();
        java.util.Set<HostPort> lost = a.placement.hostsAmong(a.lostPeers);
        for (HostPlacement.CurrentClone c : currentClones) {
            String token = a.stopTokens.get(c.node());
            if (token != null && !lost.contains(c.host())) stops.add(new VmStop.Stop(c.host(), token));
        }
        return stops;
    }

    /** As {@link #stopEverywhere(HostClient, HostsAttempt)}, but the VM's clones {@code keep} (ids) go on, to be promoted. */
    private void stopEverywhere(HostClient client, HostsAttempt a, long[] keep) {
        java.util.Set<VmStop.Stop> tokens = new java.util.LinkedHashSet<>();
        java.util.Set<HostPort> lost = a.placement.hostsAmong(a.lostPeers);
        for (Map.Entry<Integer, String> t : a.stopTokens.entrySet()) {
            if (!lost.contains(a.host(t.getKey()))) tokens.add(new VmStop.Stop(a.host(t.getKey()), t.getValue()));   // a lost one is gone, with its nodes
        }
        tokens.addAll(cloneStops(a));
        VmStop.inParallel(client, job.vmName, tokens, keep, STOP_VM_MS, out);
    }
}
