package io.dsa.agent.cli;

import java.io.PrintWriter;

/**
 * What a launcher prints while it restarts a VM from a checkpoint (docs/failures.md, "Restart"),
 * the same lines for the nodes of {@code dsa run} on this machine and for those on hosts: the loss,
 * the stop, the checkpoint and placement, the recovery. The restart's steps themselves are the
 * states of {@link io.dsa.agent.mobility.RestartChoreography}, whose ports call these; this counts
 * the restarts against {@code --max-restarts} and times the recovery from the loss's verdict.
 * Methods are synchronized: a port may print from another thread.
 */
final class RestartReport {
    private final PrintWriter out;
    private final int maxRestarts;
    private int restarts;
    /** When the launcher had the verdict of the last loss (nanoTime), the start of its recovery. */
    private long verdictNs;

    /** @param maxRestarts restarts allowed in the whole run ({@code --max-restarts}) */
    RestartReport(PrintWriter out, int maxRestarts) {
        this.out = out;
        this.maxRestarts = maxRestarts;
    }

    /** @return restarts begun so far */
    synchronized int restarts() { return restarts; }

    /** @return whether another restart is allowed */
    synchronized boolean mayRestart() { return restarts < maxRestarts; }

    /** A node or host was lost ({@code failure} says which, its first line is printed); its verdict came at {@code verdictNs}. */
    synchronized void lost(String failure, long verdictNs) {
        this.verdictNs = verdictNs;
        print("node lost: " + failure.lines().findFirst().orElse(""));
    }

    /** Every node of the lost VM is stopped; {@code lostHosts}, if not empty, were not asked (being lost). */
    synchronized void stopped(String lostHosts) {
        print(String.format("every node stopped %.1f ms after the verdict%s", sinceVerdictMs(), lostHosts.isEmpty() ? "" : " (lost: " + lostHosts + ")"));
    }

    /** The restart from the checkpoint at {@code epoch} (in {@code where}) begins; {@code placement}, if not empty, says where each node runs. */
    synchronized void restarting(String where, long epoch, String placement) {
        restarts++;
        print("restarting the VM from " + where + " (epoch " + epoch + "), restart " + restarts + " of at most " + maxRestarts
                + (placement.isEmpty() ? "" : ": " + placement));
    }

    /**
     * The same restart begins again from the checkpoint's files, as its first placement failed to start (a clone
     * whose promotion failed): counted once against {@code --max-restarts}, as the loss was one.
     */
    synchronized void restartingAgain(String where, long epoch, String placement) {
        print("restarting the VM from " + where + " (epoch " + epoch + ") instead, still restart " + restarts + " of at most " + maxRestarts
                + (placement.isEmpty() ? "" : ": " + placement));
    }

    /** Node 0 said the VM formed again and resumes at {@code epoch}. */
    synchronized void recovered(long epoch) {
        print(String.format("recovered: the VM formed again and resumes at epoch %d, %.1f ms after the failure's verdict", epoch,
                sinceVerdictMs()));
    }

    /** Any other line of the restart (why it was not restarted, a clone promoted). */
    synchronized void print(String line) {
        out.println(line);
        out.flush();
    }

    private double sinceVerdictMs() { return (System.nanoTime() - verdictNs) / 1e6; }
}
