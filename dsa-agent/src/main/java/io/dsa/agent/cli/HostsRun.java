package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.HostPort;
import io.dsa.agent.RunReport;
import io.dsa.agent.host.HostClient;
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
    /** How long a host has to take the connection and answer a stop of the VM (the hosts are asked in parallel). */
    static final long STOP_VM_MS = 2_000;
    /** Threads that ask the hosts to stop, one per host at once; daemons, so a host that never answers holds up no exit. */
    private static final java.util.concurrent.Executor STOPPERS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dsa-run-stop-host");
        t.setDaemon(true);
        return t;
    });

    private final JobOptions job;
    private final List<HostPort> hosts;
    private final byte[] secret;
    private final long heapBytes;
    private final int cpus;
    private final PrintWriter out;
    /** Prints the nodes' progress lines with the seconds since this launcher started the job. */
    private final ProgressPrinter progress;
    private final Map<Integer, CompletableFuture<HostJobEventMessage>> started = new ConcurrentHashMap<>();
    private final Map<Integer, CompletableFuture<HostJobEventMessage>> finished = new ConcurrentHashMap<>();
    /** Stop tokens by node, from each node's host. */
    private final Map<Integer, String> stopTokens = new ConcurrentHashMap<>();
    /** Failures in the order they arrived. */
    private final List<HostJobEventMessage> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param heapBytes each node's heap, 0 for the hosts' default
     * @param cpus each node's processors, 0 for the hosts' default
     */
    HostsRun(JobOptions job, List<HostPort> hosts, byte[] secret, long heapBytes, int cpus, PrintWriter out) {
        this.job = job;
        this.hosts = hosts;
        this.secret = secret;
        this.heapBytes = heapBytes;
        this.cpus = cpus;
        this.out = out;
        this.progress = new ProgressPrinter(out, System.currentTimeMillis());
        for (int n = 0; n < job.nodes; n++) {
            started.put(n, new CompletableFuture<>());
            finished.put(n, new CompletableFuture<>());
        }
    }

    /** @return the exit code: 0 when every node succeeded */
    int run(Class<? extends DsaProgram> programType, byte[] jar) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(job.timeoutMs());
        try (HostClient client = HostClient.open(secret, io.dsa.agent.DsaConfig.DEFAULT_BIND_HOST, Math.min(job.timeoutMs(), 30_000),
                job.security.value, job.failureTimeoutMs)) {
            client.onJobEvent(this::onEvent);
            // Ctrl-C or SIGTERM while the job runs: stop the VM on every host with its tokens first.
            Thread onInterrupt = new Thread(() -> stopWithin(client, STOP_ON_EXIT_MS), "dsa-run-stop");
            Runtime.getRuntime().addShutdownHook(onInterrupt);
            try {
                return runOn(client, programType, jar, deadlineNs);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(onInterrupt);
                } catch (IllegalStateException e) {
                    // the JVM is exiting: the hook runs
                }
            }
        }
    }

    private int runOn(HostClient client, Class<? extends DsaProgram> programType, byte[] jar, long deadlineNs)
            throws InterruptedException {
        client.onDisconnect(peer -> {
            String why = "lost the connection to host " + peer + " (closed, or silent for " + job.failureTimeoutMs + " ms)";
            for (CompletableFuture<HostJobEventMessage> f : finished.values()) f.completeExceptionally(new DsaException(why));
            for (CompletableFuture<HostJobEventMessage> f : started.values()) f.completeExceptionally(new DsaException(why));
        });
        try {
            for (HostPort h : hosts) connect(client, h, deadlineNs);   // authenticate everywhere before starting anything
            String monitor = null;
            for (int n = 0; n < job.nodes; n++) {
                HostPort h = host(n);
                client.submit(h, new HostJobMessage(n, job.vmName, n, job.nodes, job.threads, monitor,
                        programType.getName(), List.copyOf(job.args), options(), jar, heapBytes, cpus));
                if (n == 0) {
                    HostJobEventMessage e = await(started.get(0), deadlineNs);
                    monitor = e.text();
                    out.println("node 0 (monitor) on host " + h + " at " + monitor);
                    out.flush();
                }
            }
            RunReport report = null;
            for (int n = 0; n < job.nodes; n++) {
                HostJobEventMessage e = await(finished.get(n), deadlineNs);
                if (n == 0) {
                    report = new RunReport(job.nodes, job.threads, e.lines(), e.timings()[0], e.timings()[1]);
                }
            }
            Jobs.printReport(out, report);
            Jobs.printOk(out);
            return 0;
        } catch (TimeoutException e) {
            List<String> where = HostWorkers.ask(client, hosts, job.vmName);   // before the stop ends them
            stopEverywhere(client);
            Jobs.printFailed(out, Jobs.timedOut(job.timeoutSeconds, where));
            return DsaCli.EXIT_FAILED;
        } catch (RuntimeException e) {
            String cause = cause(e, deadlineNs);
            stopEverywhere(client);
            Jobs.printFailed(out, cause);
            return DsaCli.EXIT_FAILED;
        }
    }

    private HostPort host(int node) { return hosts.get(node % hosts.size()); }

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
        Thread stop = new Thread(() -> stopEverywhere(client), "dsa-run-stop-vm");
        stop.setDaemon(true);
        stop.start();
        try {
            stop.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<String> options() {
        return List.of("barrier=" + job.barrier.name(), "fanout=" + job.barrierFanout, "proxy=" + job.proxy.name(),
                "maxFrameBytes=" + job.maxFrameBytes, "failureTimeoutMs=" + job.failureTimeoutMs, "wait=" + job.waitStrategy.name(), "prefetchWindow=" + job.prefetchWindow,
                "hosts=" + String.join(",", hosts.stream().map(HostPort::toString).toList()));
    }

    private void onEvent(HostJobEventMessage e) {
        CompletableFuture<HostJobEventMessage> s = started.get(e.nodeId());
        CompletableFuture<HostJobEventMessage> f = finished.get(e.nodeId());
        if (s == null || f == null) return;
        switch (e.event()) {
            case HostJobEventMessage.ACCEPTED -> {
                stopTokens.put(e.nodeId(), e.text());
                for (String note : e.lines()) {
                    out.println("node " + e.nodeId() + " on host " + host(e.nodeId()) + ": " + note);
                    out.flush();
                }
            }
            case HostJobEventMessage.STARTED -> s.complete(e);
            case HostJobEventMessage.PROGRESS -> progress.onProgress(e.nodeId(), e.text());
            case HostJobEventMessage.DONE -> f.complete(e);
            default -> {
                failures.add(e);
                DsaException failure = new DsaException(e.text().startsWith("node ") ? e.text() : "node " + e.nodeId() + ": " + e.text());
                s.completeExceptionally(failure);
                f.completeExceptionally(failure);
            }
        }
    }

    /**
     * The reason to print for a failed job: a node whose JVM ended on its own caused it, so once
     * the nodes' verdicts are in (or a short grace passed) that one wins; else the first failure
     * that arrived.
     */
    private String cause(RuntimeException first, long deadlineNs) throws InterruptedException {
        long graceMs = Math.min(CAUSE_GRACE_MS, Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
        try {
            CompletableFuture.allOf(finished.values().toArray(new CompletableFuture<?>[0])).get(graceMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // some failed or are still running: what arrived is enough
        }
        for (HostJobEventMessage f : failures) {
            if (f.event() == HostJobEventMessage.EXITED) return f.text();
        }
        return failures.isEmpty() ? Jobs.describe(first) : describe(failures.get(0));
    }

    private static String describe(HostJobEventMessage e) {
        return e.text().startsWith("node ") ? e.text() : "node " + e.nodeId() + ": " + e.text();
    }

    private static HostJobEventMessage await(CompletableFuture<HostJobEventMessage> f, long deadlineNs)
            throws InterruptedException, TimeoutException {
        try {
            return f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new DsaException(e.getCause().toString(), e.getCause());
        }
    }

    /**
     * Each host that took a node gets STOP_VM with the token it returned for it, all at once: a host
     * that is stopped or cut off holds up the others by nothing, and the whole stop by at most
     * {@link #STOP_VM_MS} (its nodes, lost to the others, end with the job anyway).
     */
    private void stopEverywhere(HostClient client) {
        record Stop(HostPort host, String token) {}
        Map<Stop, CompletableFuture<Void>> stops = new java.util.LinkedHashMap<>();
        for (Map.Entry<Integer, String> t : stopTokens.entrySet()) {
            Stop stop = new Stop(host(t.getKey()), t.getValue());
            stops.computeIfAbsent(stop, k -> CompletableFuture.runAsync(
                    () -> client.stopVm(k.host(), job.vmName, k.token(), STOP_VM_MS), STOPPERS));
        }
        try {
            // connect and reply are bounded by STOP_VM_MS each
            CompletableFuture.allOf(stops.values().toArray(new CompletableFuture<?>[0])).get(2 * STOP_VM_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // each one's outcome is read below
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Stop, CompletableFuture<Void>> s : stops.entrySet()) {
            CompletableFuture<Void> f = s.getValue();
            if (!f.isDone()) {
                problems.add("host " + s.getKey().host() + " did not answer within " + 2 * STOP_VM_MS + " ms");
            } else if (f.isCompletedExceptionally()) {
                problems.add(Jobs.describe(f.handle((v, e) -> e).join()));
            }
        }
        if (!problems.isEmpty()) {
            out.println("warning: could not stop vm '" + job.vmName + "' everywhere: " + String.join("; ", problems));
            out.flush();
        }
    }
}
