package io.dsa.agent.mobility;

import java.util.List;
import java.util.function.BiFunction;

/**
 * Moves one node of a running VM to a new agent (docs/runtime.md, "What moves, in order"), the same
 * for agents in one JVM ({@code DsaCluster}) and between hosts ({@code dsa migrate}): each state's
 * step is one method of a {@link Port}.
 *
 * <pre>
 * IDLE -> PREPARING -> HOLDING -> EXPECTING -> TRANSFERRING -> CONNECTING -> AWAITING
 *      -> COMMITTING -> RELEASING -> RESUMING -> RESUMED
 * any of PREPARING..AWAITING --failure--> ABANDONING -> FAILED   (source authoritative)
 * any of COMMITTING..RESUMING --failure--> LOST                  (barrier released, never abandoned)
 * </pre>
 *
 * Not thread-safe: one thread runs a move; the port's implementations fan the steps that go to
 * several nodes out in parallel, except {@link Port#expect()} (see there).
 */
public final class MoveChoreography {
    /** The states of a move, in order; see the class comment for the transitions. */
    public enum State {
        /** not started */
        IDLE,
        /** checks and what costs no pause: the target made ready before the safe point */
        PREPARING,
        /** node 0 holds the next plain global barrier's release: the safe point */
        HOLDING,
        /** every other node told to expect the new agent, each quiescent */
        EXPECTING,
        /** snapshot taken at the source, encoded, shipped, restored at the target */
        TRANSFERRING,
        /** the new agent dials every other node */
        CONNECTING,
        /** every other node holds the new agent's connection aside */
        AWAITING,
        /** every other node swaps to the new connection; the source retires: cannot be undone */
        COMMITTING,
        /** node 0 releases the barrier */
        RELEASING,
        /** the new agent runs the program from the resume epoch */
        RESUMING,
        /** done: the node runs at its new agent */
        RESUMED,
        /** a step before the commit failed: giving everything back */
        ABANDONING,
        /** abandoned: the source serves the node as before */
        FAILED,
        /** a step from the commit on failed: the node counts as lost */
        LOST
    }

    /**
     * The steps of a move, one per state. A method returns when its step is done everywhere it
     * goes, and throws if it failed anywhere.
     */
    public interface Port {
        /** Checks that the move can be made and makes the target ready (no pause yet). */
        void prepare() throws Exception;

        /** Holds the next plain global barrier at node 0; returns at the safe point. */
        void hold() throws Exception;

        /**
         * Tells every other node to expect the moved node; returns once each is quiescent. One node
         * after the other: the quiescence argument of docs/runtime.md ("The safe point") is made for
         * checks in sequence (a node found quiescent stays so because whatever reaches it later serves
         * a node checked later), and each check returns at once when nothing is under way.
         */
        void expect() throws Exception;

        /** Snapshots the node at the source, encodes, ships and restores it at the target. */
        void transfer() throws Exception;

        /** The new agent dials every other node. */
        void connect() throws Exception;

        /** Returns once every other node holds the new agent's connection (in parallel). */
        void await() throws Exception;

        /** Every other node swaps to the new agent (in parallel); then the source retires. */
        void commit() throws Exception;

        /** Node 0 releases the held barrier. */
        void release() throws Exception;

        /** The new agent runs the program. */
        void resume() throws Exception;

        /**
         * After a failure before the commit: every other node drops the held connection (in
         * parallel), the target is closed, the source goes on. Must not throw for steps that were
         * never taken; its own failures are added to the move's.
         */
        void abandon();
    }

    private MoveChoreography() {}

    /**
     * @param what names it in the log and the trace
     * @param failure the exception {@link Choreography#run} throws for a failure in a state (the cause unwrapped)
     * @return the state machine over {@code port}, in state {@link State#IDLE}; {@link Choreography#run} runs it to
     *         {@link State#RESUMED}, or throws in {@link State#FAILED} (abandoned) or {@link State#LOST}
     */
    public static Choreography<State> create(String what, Port port, BiFunction<State, Throwable, RuntimeException> failure) {
        return new Choreography<>(what, PLAN, s -> action(port, s), port::abandon, failure);
    }

    static final Choreography.Plan<State> PLAN = new Choreography.Plan<>(State.IDLE,
            List.of(State.PREPARING, State.HOLDING, State.EXPECTING, State.TRANSFERRING, State.CONNECTING, State.AWAITING,
                    State.COMMITTING, State.RELEASING, State.RESUMING, State.RESUMED),
            State.COMMITTING, State.HOLDING, State.RELEASING, State.ABANDONING, State.FAILED, State.LOST);

    private static Choreography.Action action(Port port, State s) {
        return switch (s) {
            case PREPARING -> port::prepare;
            case HOLDING -> port::hold;
            case EXPECTING -> port::expect;
            case TRANSFERRING -> port::transfer;
            case CONNECTING -> port::connect;
            case AWAITING -> port::await;
            case COMMITTING -> port::commit;
            case RELEASING -> port::release;
            case RESUMING -> port::resume;
            case IDLE, RESUMED, ABANDONING, FAILED, LOST -> throw new IllegalStateException("no step in state " + s);
        };
    }
}
