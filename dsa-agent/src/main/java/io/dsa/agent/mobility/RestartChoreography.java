package io.dsa.agent.mobility;

import java.util.List;
import java.util.function.BiFunction;

/**
 * Restarts a VM that lost a node or a host from its newest complete checkpoint (docs/failures.md,
 * "Restart"), the same for the nodes of {@code dsa run} on this machine (node processes) and for
 * those of {@code dsa run --hosts}: each state's step is one method of a {@link Port}, driven by
 * the machine that drives moves and clones ({@link Choreography}).
 *
 * <pre>
 * IDLE -> STOPPING -> PLACING -> STARTING -> FORMING -> RESUMED
 * STOPPING or PLACING  --failure--> ABANDONING -> FAILED   (nothing restarted: the run fails)
 * STARTING or FORMING  --failure--> LOST                   (the restarted VM failed: its failure is the next verdict)
 * </pre>
 *
 * The commit is STARTING: from there on a new VM exists and its failure is a failure like any
 * other, which the launcher may restart from again. Not thread-safe: one launcher thread runs it.
 */
public final class RestartChoreography {
    /** The states of a restart, in order; see the class comment for the transitions. */
    public enum State {
        /** the lost VM's verdict is in */
        IDLE,
        /** every node of the lost VM is being ended (surviving hosts in parallel) */
        STOPPING,
        /** the checkpoint is chosen and each node gets its place (a host, a clone to promote) */
        PLACING,
        /** every node is started from the checkpoint, node 0 first */
        STARTING,
        /** waiting for node 0 to say the VM formed again */
        FORMING,
        /** done: the restarted VM runs its workers from the checkpoint's epoch */
        RESUMED,
        /** stopping or placing failed: nothing to give back (the lost VM is stopped) */
        ABANDONING,
        /** no restart: the run fails */
        FAILED,
        /** the restarted VM failed while starting or forming */
        LOST
    }

    /** The steps of a restart, one per state; a method returns when its step is done. */
    public interface Port {
        /** Ends every node of the lost VM that is still there. */
        void stop() throws Exception;

        /** Chooses the checkpoint and where each node restarts; fails when no restart is possible (saying why). */
        void place() throws Exception;

        /** Starts every node of the new VM from the checkpoint. */
        void start() throws Exception;

        /** Waits until node 0 says the new VM formed and resumes. */
        void awaitFormed() throws Exception;

        /** After a failure before the start: nothing was started; must not throw. */
        void abandon();
    }

    static final Choreography.Plan<State> PLAN = new Choreography.Plan<>(State.IDLE,
            List.of(State.STOPPING, State.PLACING, State.STARTING, State.FORMING, State.RESUMED),
            State.STARTING, null, null, State.ABANDONING, State.FAILED, State.LOST);

    private RestartChoreography() {}

    /**
     * @param what names it in the log and the trace ("restart 1 of vm 'dsa'")
     * @param failure the exception {@link Choreography#run} throws for a failure in a state (the cause unwrapped)
     * @return the state machine over {@code port}, in state {@link State#IDLE}; {@link Choreography#run} runs it to
     *         {@link State#RESUMED}, or throws in {@link State#FAILED} (no restart) or {@link State#LOST}
     */
    public static Choreography<State> create(String what, Port port, BiFunction<State, Throwable, RuntimeException> failure) {
        return new Choreography<>(what, PLAN, s -> action(port, s), port::abandon, failure);
    }

    private static Choreography.Action action(Port port, State s) {
        return switch (s) {
            case STOPPING -> port::stop;
            case PLACING -> port::place;
            case STARTING -> port::start;
            case FORMING -> port::awaitFormed;
            case IDLE, RESUMED, ABANDONING, FAILED, LOST -> throw new IllegalStateException("no step in state " + s);
        };
    }
}
