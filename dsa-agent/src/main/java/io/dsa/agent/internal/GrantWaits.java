package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.coherence.Access;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The waits for an access to a slot that no thread blocks in: the futures of
 * {@link ArrayDirectory#whenGranted} and the tasks of {@link ArrayDirectory#whenAccessible}, by
 * slot, each completed on the I/O thread right when the engine's grant gives this node the access
 * it waits for ({@link Slot#usable}: a scope's cap on the workers does not count). Its one job is
 * that bookkeeping; asking the engine is {@link ArrayDirectory}'s, through the {@link Requester}.
 *
 * <p>Threading: the map of waits is the node's {@link IoThread}'s and takes no lock;
 * {@link #whenGranted} may be called from any thread and posts its work there, every other method
 * runs on the I/O thread ({@link #fail} also after that thread stopped, when nothing else runs).
 */
final class GrantWaits {
    /** Asks the engine for an access to a partition this node lacks; on the I/O thread. */
    interface Requester {
        void request(ArrayState a, int partition, Access needed);
    }

    private final int nodeId;
    private final IoThread io;
    private final Supplier<String> failure;
    private final Requester requester;
    /** The I/O thread's: futures of {@link #whenGranted} not completed yet, by slot. */
    private final Map<Slot, List<Grant>> grants = new HashMap<>();

    /** @param failure the job's first failure, or null while it runs */
    GrantWaits(int nodeId, IoThread io, Supplier<String> failure, Requester requester) {
        this.nodeId = nodeId;
        this.io = io;
        this.failure = failure;
        this.requester = requester;
    }

    /**
     * Runs {@code task} on the I/O thread as soon as this node has {@code needed} on
     * {@code partition} ({@link Slot#usable}: a scope's cap on the workers does not count): now if
     * it has, else right when the engine grants it (asking for it if need be), before the I/O
     * thread handles anything else, so the access is still there. Tasks
     * waiting for one slot run in the order they were given. Dropped if the job fails first.
     */
    void whenAccessible(ArrayState a, int partition, Access needed, Runnable task) {
        assert io.isCurrent() : "whenAccessible off the I/O thread";
        Slot s = a.slots[partition];
        if (s.usable().allows(needed)) {
            task.run();
            return;
        }
        if (failure.get() != null) return;
        CompletableFuture<Void> granted = new CompletableFuture<>();
        granted.thenRun(task); // runs in the thread that completes it: the I/O thread, in granted()
        grants.computeIfAbsent(s, k -> new ArrayList<>()).add(new Grant(granted, needed));
        requester.request(a, partition, needed);
    }

    /**
     * @return a future completed (on the I/O thread) once this node has {@code needed} on
     *         {@code partition} ({@link Slot#usable}), asking the engine for it if need be; no
     *         thread waits meanwhile.
     *         Completed exceptionally if the job fails first.
     */
    CompletableFuture<Void> whenGranted(ArrayState a, int partition, Access needed) {
        CompletableFuture<Void> f = DrivingFuture.of(io);   // under SPIN its join reads the reply itself
        Slot s = a.slots[partition];
        if (s.usable().allows(needed)) {
            f.complete(null);
            return f;
        }
        try {
            io.execute(() -> {
                if (s.usable().allows(needed)) {
                    f.complete(null);
                    return;
                }
                String failed = failure.get();
                if (failed != null) {
                    f.completeExceptionally(new DsaException("job failed: " + failed));
                    return;
                }
                grants.computeIfAbsent(s, k -> new ArrayList<>()).add(new Grant(f, needed));
                requester.request(a, partition, needed);
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new DsaException("node " + nodeId + " is closed"));
        }
        return f;
    }

    private record Grant(CompletableFuture<Void> future, Access needed) {}

    /** @return whether a future waits for {@code s}; on the I/O thread */
    boolean waitsOn(Slot s) {
        return grants.containsKey(s);
    }

    /** A slot's access changed: completes the futures it now satisfies; on the I/O thread. */
    void granted(Slot s) {
        if (grants.isEmpty()) return;
        List<Grant> waiting = grants.get(s);
        if (waiting == null) return;
        Access now = s.usable();
        waiting.removeIf(g -> {
            if (!now.allows(g.needed())) return false;
            g.future().complete(null);
            return true;
        });
        if (waiting.isEmpty()) grants.remove(s);
    }

    /** The job failed with {@code failure}: fails every future waiting; on the I/O thread (or after it stopped). */
    void fail(String failure) {
        for (List<Grant> waiting : grants.values()) {
            for (Grant g : waiting) g.future().completeExceptionally(new DsaException("job failed: " + failure));
        }
        grants.clear();
    }
}
