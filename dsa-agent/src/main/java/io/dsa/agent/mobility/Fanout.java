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
