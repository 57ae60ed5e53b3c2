package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stops a VM on its hosts all at once (docs/failures.md, "Restart on hosts"): a host that is
 * stopped or cut off holds up the others by nothing, and the whole stop by at most twice the bound
 * (to connect, to answer). What could not be stopped is printed as one warning.
 */
final class VmStop {
    /** Threads that ask the hosts to stop, one per host at once; daemons, so a host that never answers holds up no exit. */
    private static final Executor STOPPERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dsa-run-stop-host");
        t.setDaemon(true);
        return t;
    });

    private VmStop() {}

    /** A host to stop the VM on, with the stop token it gave for (some of) the VM's nodes there. */
    record Stop(HostPort host, String token) {}

    /**
     * Sends STOP_VM for {@code vmName} to each host of {@code tokens} with its stop token, in
     * parallel, sparing the VM's clones {@code keep} (ids; to be promoted), and waits at most
     * {@code 2 * timeoutMs}.
     */
    static void inParallel(HostClient client, String vmName, java.util.Collection<Stop> tokens, long[] keep, long timeoutMs,
            PrintWriter out) {
        Map<Stop, CompletableFuture<Void>> stops = new java.util.LinkedHashMap<>();
        for (Stop t : tokens) {
            stops.computeIfAbsent(t, k -> CompletableFuture.runAsync(() -> client.stopVm(k.host(), vmName, k.token(), keep, timeoutMs),
                    STOPPERS));
        }
        try {
            // connect and reply are bounded by timeoutMs each
            CompletableFuture.allOf(stops.values().toArray(new CompletableFuture<?>[0])).get(2 * timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // each one's outcome is read below
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Stop, CompletableFuture<Void>> s : stops.entrySet()) {
            CompletableFuture<Void> f = s.getValue();
            if (!f.isDone()) {
                problems.add("host " + s.getKey().host() + " did not answer within " + 2 * timeoutMs + " ms");
            } else if (f.isCompletedExceptionally()) {
                problems.add(Jobs.describe(f.handle((v, e) -> e).join()));
            }
        }
        if (!problems.isEmpty()) {
            out.println("warning: could not stop vm '" + vmName + "' everywhere: " + String.join("; ", problems));
            out.flush();
        }
    }
}
