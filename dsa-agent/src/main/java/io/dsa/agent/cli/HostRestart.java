package io.dsa.agent.cli;

import java.io.PrintWriter;
import java.util.EnumSet;
import java.util.Map;

/**
 * The restart of a VM on hosts after a lost node or host (docs/failures.md, "Restart on hosts"),
 * as a state machine: {@link HostsRun} does each step and reports its outcome here; every change
 * of state passes through {@link #transitionTo}, which checks that it is legal and prints what
 * happens, as the local launcher does ({@code node lost: ...}, {@code restarting the VM from ...},
 * {@code recovered: ...}).
 *
 * <pre>
 * RUNNING --lost--> STOPPING --stopped--> PLACING --placed--> STARTING --started--> FORMING --resumed--> RUNNING
 *    any state but RUNNING --cannot go on--> GAVE_UP
 * </pre>
 * One launcher thread drives it, except {@link #onResumed}, which a host's event delivers (the
 * methods are synchronized).
 */
final class HostRestart {
    /** Where the restart is. */
    enum State {
        /** The VM runs (the first one, or one restarted and resumed). */
        RUNNING,
        /** A node was lost: the VM is being stopped on every host, in parallel. */
        STOPPING,
        /** Every host stopped it (or is lost): the nodes are being placed on the remaining hosts. */
        PLACING,
        /** The nodes are being started from the checkpoint, node 0 first. */
        STARTING,
        /** Every node started: waiting for node 0 to say the VM formed again and resumes. */
        FORMING,
        /** No restart is possible (no checkpoint, no restart left, no copy survives): the run fails. */
        GAVE_UP;
    }

    private static final Map<State, EnumSet<State>> LEGAL = Map.of(
            State.RUNNING, EnumSet.of(State.STOPPING, State.GAVE_UP),
            State.STOPPING, EnumSet.of(State.PLACING, State.GAVE_UP),
            State.PLACING, EnumSet.of(State.STARTING, State.GAVE_UP),
            State.STARTING, EnumSet.of(State.FORMING, State.STOPPING, State.GAVE_UP),
            State.FORMING, EnumSet.of(State.RUNNING, State.STOPPING, State.GAVE_UP),
            State.GAVE_UP, EnumSet.noneOf(State.class));

    private final PrintWriter out;
    private final int maxRestarts;
    private State state = State.RUNNING;
    private int restarts;
    /** When the launcher had the verdict of the last loss (nanoTime), the start of its recovery. */
    private long verdictNs;

    /** @param maxRestarts restarts allowed in the whole run ({@code --max-restarts}) */
    HostRestart(PrintWriter out, int maxRestarts) {
        this.out = out;
        this.maxRestarts = maxRestarts;
    }

    /** @return the current state */
    synchronized State state() { return state; }

    /** @return restarts begun so far */
    synchronized int restarts() { return restarts; }

    /** @return whether another restart is allowed */
    synchronized boolean mayRestart() { return restarts < maxRestarts; }

    /** A node or host was lost ({@code failure} says which); the launcher starts stopping the VM everywhere. */
    synchronized void onLost(String failure, long verdictNs) {
        this.verdictNs = verdictNs;
        transitionTo(State.STOPPING, "node lost: " + failure.lines().findFirst().orElse(""));
    }

    /** Every host stopped the VM ({@code lostHosts}: those not asked, being lost). */
    synchronized void onStopped(String lostHosts) {
        transitionTo(State.PLACING, String.format("every node stopped %.1f ms after the verdict%s", sinceVerdictMs(),
                lostHosts.isEmpty() ? "" : " (lost: " + lostHosts + ")"));
    }

    /** The nodes have hosts again; the restart from the checkpoint at {@code epoch} (in {@code where}) begins. */
    synchronized void onPlaced(String placement, long epoch, String where) {
        restarts++;
        transitionTo(State.STARTING, "restarting the VM from " + where + " (epoch " + epoch + "), restart " + restarts + " of at most "
                + maxRestarts + ": " + placement);
    }

    /** Every node's host reported it started. */
    synchronized void onStarted() { transitionTo(State.FORMING, null); }

    /** Node 0 said the VM formed again and resumes at {@code epoch}. Any thread. */
    synchronized void onResumed(long epoch) {
        if (state != State.FORMING && state != State.STARTING) return;   // a late event of an attempt given up
        if (state == State.STARTING) transitionTo(State.FORMING, null);   // node 0's event may overtake the last STARTED
        transitionTo(State.RUNNING, String.format("recovered: the VM formed again and resumes at epoch %d, %.1f ms after the failure's verdict",
                epoch, sinceVerdictMs()));
    }

    /** No restart: {@code why} is printed before the run's failure. */
    synchronized void onGaveUp(String why) { transitionTo(State.GAVE_UP, why); }

    private double sinceVerdictMs() { return (System.nanoTime() - verdictNs) / 1e6; }

    // The one place the state changes: checks the transition and prints its line (if any).
    private void transitionTo(State next, String line) {
        if (!LEGAL.get(state).contains(next)) throw new IllegalStateException("restart: " + state + " -> " + next + " is not legal");
        state = next;
        if (line != null) {
            out.println(line);
            out.flush();
        }
    }
}
