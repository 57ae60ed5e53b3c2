package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.HostPort;
import io.dsa.agent.RunReport;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostRequestMessage;
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
 * the program's JAR over the authenticated channel. Waits for every node's verdict; on failure or
 * timeout, asks every host to stop the VM.
 */
final class HostsRun {
    private final JobOptions job;
    private final List<HostPort> hosts;
    private final byte[] secret;
    private final PrintWriter out;
    private final Map<Integer, CompletableFuture<HostJobEventMessage>> started = new ConcurrentHashMap<>();
    private final Map<Integer, CompletableFuture<HostJobEventMessage>> finished = new ConcurrentHashMap<>();

    HostsRun(JobOptions job, List<HostPort> hosts, byte[] secret, PrintWriter out) {
        this.job = job;
        this.hosts = hosts;
        this.secret = secret;
        this.out = out;
        for (int n = 0; n < job.nodes; n++) {
            started.put(n, new CompletableFuture<>());
            finished.put(n, new CompletableFuture<>());
        }
    }

    /** @return the exit code: 0 when every node succeeded */
    int run(Class<? extends DsaProgram> programType, byte[] jar) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(job.timeoutMs());
        try (HostClient client = HostClient.open(secret, io.dsa.agent.DsaConfig.DEFAULT_BIND_HOST, Math.min(job.timeoutMs(), 30_000),
                job.security.value)) {
            client.onJobEvent(this::onEvent);
            client.onDisconnect(peer -> {
                String why = "lost the connection to host " + peer;
                for (CompletableFuture<HostJobEventMessage> f : finished.values()) f.completeExceptionally(new DsaException(why));
                for (CompletableFuture<HostJobEventMessage> f : started.values()) f.completeExceptionally(new DsaException(why));
            });
            try {
                for (HostPort h : hosts) client.connect(h);   // authenticate everywhere before starting anything
                String monitor = null;
                for (int n = 0; n < job.nodes; n++) {
                    HostPort h = hosts.get(n % hosts.size());
                    client.submit(h, new HostJobMessage(n, job.vmName, n, job.nodes, job.threads, monitor,
                            programType.getName(), List.copyOf(job.args), options(), jar));
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
                stopEverywhere(client);
                Jobs.printFailed(out, "timed out after " + job.timeoutSeconds + " s");
                return DsaCli.EXIT_FAILED;
            } catch (RuntimeException e) {
                stopEverywhere(client);
                Jobs.printFailed(out, Jobs.describe(e));
                return DsaCli.EXIT_FAILED;
            }
        }
    }

    private List<String> options() {
        return List.of("barrier=" + job.barrier.name(), "fanout=" + job.barrierFanout, "proxy=" + job.proxy.name(),
                "wait=" + job.waitStrategy.name(), "prefetchWindow=" + job.prefetchWindow, "hosts=" + String.join(",", hosts.stream().map(HostPort::toString).toList()));
    }

    private void onEvent(HostJobEventMessage e) {
        CompletableFuture<HostJobEventMessage> s = started.get(e.nodeId());
        CompletableFuture<HostJobEventMessage> f = finished.get(e.nodeId());
        if (s == null || f == null) return;
        switch (e.event()) {
            case HostJobEventMessage.STARTED -> s.complete(e);
            case HostJobEventMessage.DONE -> f.complete(e);
            default -> {
                DsaException failure = new DsaException(e.text().startsWith("node ") ? e.text() : "node " + e.nodeId() + ": " + e.text());
                s.completeExceptionally(failure);
                f.completeExceptionally(failure);
            }
        }
    }

    private static HostJobEventMessage await(CompletableFuture<HostJobEventMessage> f, long deadlineNs)
            throws InterruptedException, TimeoutException {
        try {
            return f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new DsaException(e.getCause().toString(), e.getCause());
        }
    }

    private void stopEverywhere(HostClient client) {
        List<String> problems = new ArrayList<>();
        for (HostPort h : hosts) {
            try {
                client.request(h, HostRequestMessage.STOP_VM, job.vmName, -1, null);
            } catch (RuntimeException e) {
                problems.add(Jobs.describe(e));
            }
        }
        if (!problems.isEmpty()) {
            out.println("warning: could not stop vm '" + job.vmName + "' everywhere: " + String.join("; ", problems));
            out.flush();
        }
    }
}
