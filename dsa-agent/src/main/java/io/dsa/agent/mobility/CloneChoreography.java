package io.dsa.agent.mobility;

import java.util.List;
import java.util.function.BiFunction;

/**
 * Starts a clone of one node (docs/runtime.md, "Cloning"), the same for agents in one JVM
 * ({@code DsaCluster.cloneNode}) and between hosts ({@code dsa clone}): each state's step is one
 * method of a {@link Port}, driven by the machine that drives moves.
 *
 * <pre>
 * IDLE -> PREPARING -> HOLDING -> TRANSFERRING -> ADMITTING -> CONNECTING -> REGISTERING
 *      -> COMMITTING -> RELEASING -> CLONED
 * any of PREPARING..REGISTERING --failure--> ABANDONING -> FAILED   (the clone closed: homes forget it)
 * COMMITTING or RELEASING       --failure--> LOST                   (barrier released)
 * </pre>
 *
 * Not thread-safe: one thread runs a clone; the port fans the steps that go to every node out in
 * parallel (admitting and registering are independent per node: no quiescence is needed, the
 * clone only adds a sharer).
 */
public final class CloneChoreography {
    /** The states of a clone, in order; see the class comment for the transitions. */
    public enum State {
        /** not started */
        IDLE,
        /** checks, the clone's id chosen, the target made ready before the safe point */
        PREPARING,
        /** node 0 holds the next plain global barrier's release (when a job runs) */
        HOLDING,
        /** the clone's state taken at the source, encoded, shipped, restored at the target */
        TRANSFERRING,
        /** every node accepts the clone's id */
        ADMITTING,
        /** the clone dials every node */
        CONNECTING,
        /** every home registers the clone as a sharer of the partitions it holds */
        REGISTERING,
        /** the clone counts as the VM's; the source ends the cloning */
        COMMITTING,
        /** node 0 releases the barrier */
        RELEASING,
        /** done: the clone serves */
        CLONED,
        /** a step before the commit failed: giving everything back */
        ABANDONING,
        /** abandoned: no node refers to the clone */
        FAILED,
        /** a step from the commit on failed */
        LOST
    }

    /** The steps of a clone, one per state; a method returns when its step is done everywhere. */
    public interface Port {
        /** Checks, picks the clone's id, makes the target ready (no pause yet). */
        void prepare() throws Exception;

        /** Holds the safe point at node 0 if a job runs. */
        void hold() throws Exception;

        /** Takes the clone's state at the source, ships it and restores the clone at the target. */
        void transfer() throws Exception;

        /** Every node admits the clone's id (in parallel). */
        void admit() throws Exception;

        /** The clone dials every node. */
        void connect() throws Exception;

        /** Every home registers the clone as a sharer (in parallel). */
        void register() throws Exception;

        /** The clone becomes the VM's; the source ends the cloning. */
        void commit() throws Exception;

        /** Node 0 releases the barrier, if it was held. */
        void release() throws Exception;

        /**
         * After a failure before the commit: the clone is closed (every home forgets it when its
         * connections close) and the source ends the cloning. Must not throw for steps never taken.
         */
        void abandon();
    }

    static final Choreography.Plan<State> PLAN = new Choreography.Plan<>(State.IDLE,
            List.of(State.PREPARING, State.HOLDING, State.TRANSFERRING, State.ADMITTING, State.CONNECTING, State.REGISTERING,
                    State.COMMITTING, State.RELEASING, State.CLONED),
            State.COMMITTING, State.HOLDING, State.RELEASING, State.ABANDONING, State.FAILED, State.LOST);

    private CloneChoreography() {}

    /**
     * @param what names it in the log and the trace
     * @param failure the exception {@link Choreography#run} throws for a failure in a state (the cause unwrapped)
     * @return the state machine over {@code port}, in state {@link State#IDLE}; {@link Choreography#run} runs it to
     *         {@link State#CLONED}, or throws in {@link State#FAILED} (abandoned) or {@link State#LOST}
     */
    public static Choreography<State> create(String what, Port port, BiFunction<State, Throwable, RuntimeException> failure) {
        return new Choreography<>(what, PLAN, s -> action(port, s), port::abandon, failure);
    }

    private static Choreography.Action action(Port port, State s) {
        return switch (s) {
            case PREPARING -> port::prepare;
            case HOLDING -> port::hold;
            case TRANSFERRING -> port::transfer;
            case ADMITTING -> port::admit;
            case CONNECTING -> port::connect;
            case REGISTERING -> port::register;
            case COMMITTING -> port::commit;
            case RELEASING -> port::release;
            case IDLE, CLONED, ABANDONING, FAILED, LOST -> throw new IllegalStateException("no step in state " + s);
        };
    }
}
