package io.dsa.agent.host;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The nodes a host served that have ended (DONE, FAILED or STOPPED), remembered for
 * {@value #KEEP_MS} ms (at most {@value #MAX_ROWS} of them, the oldest forgotten first) so that
 * {@code dsa status}, {@code migrate}, {@code clone} and {@code read} can tell a finished VM from
 * one that never was. Their status rows have the live rows' columns, with {@code -} for the
 * agent's address and the partition counts. Each also keeps the stop token its launcher received,
 * so that a stop that comes after the node ended on its own is not taken for a wrong token
 * ({@link #endedWithToken}). Thread-safe.
 */
final class FinishedJobs {
    /** How long an ended node stays in the status: ten minutes. */
    static final long KEEP_MS = 10 * 60_000;
    /** The most ended nodes remembered. */
    static final int MAX_ROWS = 4096;

    private record Ended(String vm, StatusRow row, byte[] stopToken, long atMs) {}

    private final Deque<Ended> ended = new ArrayDeque<>();
    private final LongSupplier clockMs;

    /** @param clockMs the time in milliseconds ({@code System::currentTimeMillis}; tests pass their own) */
    FinishedJobs(LongSupplier clockMs) { this.clockMs = clockMs; }

    /**
     * Remembers that node {@code node} of {@code vm}, a VM of {@code nodes} nodes, which ran
     * {@code program} under the stop token {@code stopToken}, ended in {@code state} on {@code host}.
     */
    synchronized void add(String vm, int node, int nodes, String host, String state, String program, String stopToken) {
        StatusRow row = new StatusRow(vm, node, host, StatusRow.NO_AGENT, state, program, StatusRow.UNKNOWN, StatusRow.UNKNOWN, nodes);
        ended.addLast(new Ended(vm, row, stopToken.getBytes(StandardCharsets.US_ASCII), clockMs.getAsLong()));
        while (ended.size() > MAX_ROWS) ended.removeFirst();
    }

    /**
     * @return whether a node of {@code vm} that ended here within {@link #KEEP_MS} ran under the
     *         stop token {@code token} (compared in constant time)
     */
    synchronized boolean endedWithToken(String vm, byte[] token) {
        prune();
        for (Ended e : ended) if (e.vm().equals(vm) && MessageDigest.isEqual(e.stopToken(), token)) return true;
        return false;
    }

    /** @return the status rows of the ended nodes of {@code vm} (all if null), oldest first, less those past {@link #KEEP_MS} */
    synchronized List<StatusRow> rows(String vm) {
        prune();
        List<StatusRow> rows = new ArrayList<>();
        for (Ended e : ended) if (vm == null || vm.equals(e.vm())) rows.add(e.row());
        return rows;
    }

    // forgets the nodes that ended more than KEEP_MS ago
    private void prune() {
        long oldest = clockMs.getAsLong() - KEEP_MS;
        while (!ended.isEmpty() && ended.peekFirst().atMs() < oldest) ended.removeFirst();
    }
}
