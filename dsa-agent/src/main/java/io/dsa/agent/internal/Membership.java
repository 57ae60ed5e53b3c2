package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import io.dsa.agent.wire.ViewMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The VM's membership as one node knows it: the view (every node's address, from node 0 once all
 * have joined, or from a moved state), the dialling of lower nodes it implies, and the addresses
 * as moves change them. The I/O thread delivers the view; workers and the thread running a move
 * read it.
 */
final class Membership {
    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    private final long startupTimeoutMs;
    private final PeerNetwork network;
    private final JobLifecycle job;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<ViewMessage> view = new CompletableFuture<>();
    private volatile long viewNanos;
    private volatile String[] addresses = new String[0];

    Membership(int nodeId, int nodes, int threadsPerNode, long startupTimeoutMs, PeerNetwork network, JobLifecycle job) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.startupTimeoutMs = startupTimeoutMs;
        this.network = network;
        this.job = job;
    }

    /**
     * Node 0's view. A view that does not fit this node's configuration or holds an address that is
     * not {@code host:port} fails the job here ({@link #invalidView}); otherwise this node dials
     * every node {@code 0 < j < nodeId} (the higher id dials the lower; node 0's connection exists
     * since the join) through {@code dialer}.
     */
    void onView(ViewMessage v, NodeTransport dialer) {
        String invalid = invalidView(v, nodeId, nodes, threadsPerNode);
        if (invalid != null) {
            job.abort(invalid);
            view.completeExceptionally(new DsaException(job.failure()));
            return;
        }
        for (int j = 1; j < nodeId; j++) {
            int peer = j;
            HostPort hp = HostPort.parse(v.addresses().get(j));
            dialer.connect(hp.host(), hp.port()).whenComplete((c, e) -> {
                if (e != null) {
                    job.reportFailure("node " + nodeId + " cannot connect to node " + peer + " at " + hp + ": " + e.getMessage());
                } else if (c.peerNodeId() != peer || !network.attach(peer, c)) {
                    c.close();
                    job.reportFailure("node " + nodeId + " reached node " + c.peerNodeId() + " at " + hp + ", expected node " + peer);
                }
            });
        }
        addresses = v.addresses().toArray(new String[0]);
        viewNanos = System.nanoTime();
        view.complete(v);
    }

    /**
     * Checks a view from the network against node {@code nodeId}'s configuration: {@code nodes}
     * addresses, each {@code host:port} ({@link HostPort#parse}), and {@code threadsPerNode}.
     *
     * @return why the view is refused, or null when it fits
     */
    static String invalidView(ViewMessage v, int nodeId, int nodes, int threadsPerNode) {
        List<String> addresses = v.addresses();
        if (addresses == null || addresses.size() != nodes || v.threadsPerNode() != threadsPerNode) {
            return "view of " + (addresses == null ? "no" : addresses.size()) + " nodes x " + v.threadsPerNode()
                    + " threads does not match node " + nodeId + "'s configuration of " + nodes + " x " + threadsPerNode;
        }
        for (int j = 0; j < nodes; j++) {
            try {
                HostPort.parse(addresses.get(j));
            } catch (IllegalArgumentException e) {
                return "view refused by node " + nodeId + ": node " + j + "'s " + e.getMessage();
            }
        }
        return null;
    }

    /** A restored agent's view: the moved state's, with this node at {@code addresses}' own entry. */
    void install(List<String> addresses) {
        this.addresses = addresses.toArray(new String[0]);
        viewNanos = System.nanoTime();
        view.complete(new ViewMessage(threadsPerNode, List.copyOf(addresses)));
    }

    /**
     * Waits for the view, waking up to notice a failed job (a node lost before the VM formed fails
     * it at once, not after the startup timeout).
     *
     * @throws DsaException if the VM does not form in time, the view was refused, or the job failed
     */
    ViewMessage await() {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startupTimeoutMs);
        try {
            while (true) {
                long leftNs = deadlineNs - System.nanoTime();
                try {
                    return view.get(Math.max(0, Math.min(leftNs, TimeUnit.MILLISECONDS.toNanos(NodeRuntime.POLL_MS))),
                            TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    job.checkFailed();
                    if (leftNs <= 0) throw e;
                }
            }
        } catch (TimeoutException e) {
            throw new DsaException("the virtual machine did not form within " + startupTimeoutMs
                    + " ms (node " + nodeId + " waited for the view of " + nodes + " nodes)");
        } catch (ExecutionException e) {
            throw new DsaException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for the view");
        }
    }

    /** @return completes when the view arrived (or was installed) */
    CompletableFuture<Void> formed() { return view.thenApply(v -> null); }

    /** @return the address of every node, by id (empty before the view) */
    List<String> addresses() { return List.of(addresses); }

    /** @return node {@code node}'s address in the view */
    String address(int node) { return addresses[node]; }

    /** Node {@code node} moved to {@code address}. */
    void moved(int node, String address) {
        String[] a = addresses.clone();
        a[node] = address;
        addresses = a;
    }

    /** @return nanoseconds from this node's start to its view */
    long startupNanos() { return viewNanos - startNanos; }
}
