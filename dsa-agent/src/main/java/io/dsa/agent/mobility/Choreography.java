package io.dsa.agent.mobility;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one driver of a move, a clone and a restart (docs/runtime.md, "The choreography"): a fixed sequence
 * of states, each with one action on a port, and the rules every failure follows. Before the
 * commit a failure abandons (every node drops what it held for the new agent, the new agent is
 * closed, the source goes on, the barrier is released if it was held) and ends in the failed
 * state; from the commit on nothing abandons: a failing step still lets the barrier go and the
 * machine ends in the lost state (the node's failure is then the ordinary loss of a node).
 *
 * Built by {@link MoveChoreography#create}, {@link CloneChoreography#create} and {@link RestartChoreography#create}.
 *
 * <p>Every state change passes {@link #transitionTo}, which checks it against the sequence and
 * logs it at DEBUG. Not thread-safe: one thread runs a choreography; its port may fan steps out.
 *
 * @param <S> the states: {@link MoveChoreography.State}, {@link CloneChoreography.State} or {@link RestartChoreography.State}
 */
public final class Choreography<S extends Enum<S>> {
    private static final Logger LOG = LoggerFactory.getLogger(Choreography.class);

    /** One state's action on the port; its exception is the step's failure. */
    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }

    /**
     * The shape of a choreography.
     *
     * @param idle the state before {@link #run}
     * @param forward the states in order after idle, up to and including the success terminal
     * @param commit the first state whose action cannot be undone
     * @param holding the state whose action holds the safe point (released by {@code releasing}); null: none (a restart)
     * @param releasing the state whose action releases the safe point; null: none
     * @param abandoning the state of giving back after a failure before the commit
     * @param failed the terminal state after abandoning
     * @param lost the terminal state after a failure from the commit on
     */
    record Plan<S extends Enum<S>>(S idle, List<S> forward, S commit, S holding, S releasing, S abandoning, S failed, S lost) {
        boolean beforeCommit(S s) { return forward.indexOf(s) >= 0 && forward.indexOf(s) < forward.indexOf(commit); }

        S success() { return forward.get(forward.size() - 1); }

        S after(S s) { return s == idle ? forward.get(0) : forward.get(forward.indexOf(s) + 1); }
    }

    private final String what;
    private final Plan<S> plan;
    private final Function<S, Action> actions;
    private final Runnable abandon;
    private final BiFunction<S, Throwable, RuntimeException> failure;
    private final List<String> trace = new ArrayList<>();
    private S state;
    private boolean held;
    /** The seeded bug of {@link #skipActionOf}, or null. */
    private S skipped;

    /**
     * @param what names the choreography in the log and the trace ("move of vm/2 to H")
     * @param actions the action of each forward state but the success terminal
     * @param abandon gives back what the steps so far took (run in the abandoning state)
     * @param failure the exception {@link #run} throws for a failure in a state (the cause unwrapped)
     */
    Choreography(String what, Plan<S> plan, Function<S, Action> actions, Runnable abandon,
            BiFunction<S, Throwable, RuntimeException> failure) {
        this.what = what;
        this.plan = plan;
        this.actions = actions;
        this.abandon = abandon;
        this.failure = failure;
        this.state = plan.idle();
    }

    /**
     * A seeded bug for tests: the action of {@code s} is skipped (the state is passed, legally, with
     * nothing done). With the await state, a move commits before every node acknowledged the new
     * agent's connection; the tests must catch that. Package-private: the runtime cannot switch it on.
     */
    void skipActionOf(S s) { skipped = s; }

    /** @return the state now */
    public S state() { return state; }

    /** @return every transition so far, as {@code "A -> B: reason"} */
    public List<String> trace() { return Collections.unmodifiableList(trace); }

    /**
     * Runs every state's action in order to the success terminal.
     *
     * @throws RuntimeException as built by the failure function, after abandoning (before the
     *         commit) or after releasing (from the commit on)
     */
    public void run() {
        if (state != plan.idle()) throw new IllegalStateException(what + " already ran: " + state);
        transitionTo(plan.after(state), "started");
        while (state != plan.success()) {
            S s = state;
            try {
                if (s == plan.holding()) held = true;       // a hold asked for is released, even if it failed
                if (s == plan.releasing()) held = false;    // released once, even if releasing fails
                if (s != skipped) actions.apply(s).run();
            } catch (Exception | Error e) {
                if (e instanceof InterruptedException) Thread.currentThread().interrupt();
                Throwable cause = unwrap(e);
                if (plan.beforeCommit(s)) giveBack(s, cause);
                else letGo(s, cause);
                throw failure.apply(s, cause);
            }
            transitionTo(plan.after(s), "done: " + s);
        }
    }

    // Before the commit: every node drops what it held, the target is closed, the source goes on.
    private void giveBack(S failedIn, Throwable cause) {
        transitionTo(plan.abandoning(), "failed in " + failedIn + ": " + cause);
        try {
            abandon.run();
        } catch (RuntimeException x) {
            cause.addSuppressed(x);
        }
        releaseIfHeld(cause);
        transitionTo(plan.failed(), "abandoned");
    }

    // From the commit on: never abandon; the barrier still opens, and the node's failure is a lost node's.
    private void letGo(S failedIn, Throwable cause) {
        releaseIfHeld(cause);
        transitionTo(plan.lost(), "failed in " + failedIn + " after the commit: " + cause);
    }

    private void releaseIfHeld(Throwable cause) {
        if (!held) return;
        try {
            actions.apply(plan.releasing()).run();
            held = false;
        } catch (Exception x) {
            cause.addSuppressed(x);
        }
    }

    /** The one place a state changes: checks the transition against the plan and logs it. */
    private void transitionTo(S next, String reason) {
        boolean legal;
        if (next == plan.abandoning()) legal = plan.beforeCommit(state);
        else if (next == plan.failed()) legal = state == plan.abandoning();
        else if (next == plan.lost()) legal = !plan.beforeCommit(state) && state != plan.idle() && plan.forward().contains(state);
        else legal = state != plan.success() && (state == plan.idle() || plan.forward().contains(state)) && next == plan.after(state);
        if (!legal) throw new IllegalStateException(what + ": illegal transition " + state + " -> " + next + " (" + reason + ")");
        String line = state + " -> " + next + ": " + reason;
        trace.add(line);
        LOG.debug("{}: {}", what, line);
        state = next;
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) e = e.getCause();
        return e;
    }
}
