package io.dsa.agent.mobility;

import io.dsa.DsaException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Runs one step at several nodes or hosts at once and waits for all of them: the parallel steps of
 * a move or a clone (the per-host requests of {@code dsa migrate} each wait for a round trip).
 */
public final class Fanout {
    private Fanout() {}

    /** One step at one target. */
    @FunctionalInterface
    public interface Step<T> {
        void run(T target) throws Exception;
    }

    /**
     * Runs {@code step} at node 0 first, if {@code nodes} holds it, then at the other nodes at once
     * ({@link #all}): the order of a move's commit. The moving node's old agent reports what it
     * sees (a lost peer, its end) to node 0 only; once node 0 has committed, the old connection is
     * retired there and whatever the old agent still sends is dropped. Committed the other way
     * round, a peer's commit closes its old connection, the old agent reports that peer as lost,
     * and node 0, still holding the old connection as the node's, fails the job (and sends the
     * abort to the old agent, so the new one waits forever at its first barrier).
     *
     * @throws Exception node 0's failure (no other node is asked), or the first of the others'
     */
    public static void nodeZeroFirst(List<Integer> nodes, Step<Integer> step) throws Exception {
        List<Integer> rest = new ArrayList<>(nodes);
        if (rest.remove(Integer.valueOf(0))) step.run(0);
        if (!rest.isEmpty()) all(rest, step);
    }

    /**
     * Runs {@code step} for every target, each on its own thread (the caller's for a single one), and
     * returns when every one ended.
     *
     * @throws Exception the first failure in {@code targets}' order, the others added as suppressed
     */
    public static <T> void all(List<T> targets, Step<T> step) throws Exception {
        if (targets.size() == 1) {
            step.run(targets.get(0));
            return;
        }
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (T t : targets) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    step.run(t);
                    f.complete(null);
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            }, "dsa-mobility-step");
            thread.setDaemon(true);
            thread.start();
            running.add(f);
        }
        Exception first = null;
        for (CompletableFuture<Void> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                Exception x = cause instanceof Exception c ? c : new DsaException(cause.toString(), cause);
                if (first == null) first = x;
                else first.addSuppressed(x);
            }
        }
        if (first != null) throw first;
    }
}
