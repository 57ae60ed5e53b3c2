package io.dsa.agent.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits for a condition that another process makes true, with a deadline whose failure names what
 * was awaited. Files it writes are waited on with a {@link WatchService} on their directory
 * ({@link #file}, {@link #inDirectory}); a condition that gives no notification (a host's status
 * over the network, a child process appearing) is probed at an interval on a thread of its own
 * while the caller waits for the first satisfying result ({@link #until}).
 */
final class Poll {
    private Poll() {}

    /**
     * @return the first probe result that satisfies {@code done}
     * @throws AssertionError after {@code timeoutMs}, naming {@code what} and the last result
     */
    static <T> T until(String what, Supplier<T> probe, Predicate<T> done, long timeoutMs, long intervalMs)
            throws InterruptedException {
        // the probe runs every intervalMs on a thread of its own; this thread waits for the first result that
        // satisfies done, up to the deadline
        CompletableFuture<T> found = new CompletableFuture<>();
        AtomicReference<T> last = new AtomicReference<>();
        ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "probe: " + what);
            t.setDaemon(true);
            return t;
        });
        prober.scheduleWithFixedDelay(() -> {
            try {
                T result = probe.get();
                last.set(result);
                if (done.test(result)) found.complete(result);
            } catch (RuntimeException | Error e) {
                found.completeExceptionally(e);
            }
        }, 0, intervalMs, TimeUnit.MILLISECONDS);
        try {
            return found.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not happen within " + timeoutMs + " ms; last:\n" + last.get());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw (Error) e.getCause();
        } finally {
            prober.shutdownNow();
        }
    }

    /** Polls {@code dsa status ARGS} every 100 ms for up to 120 s (a loaded machine starts JVMs slowly) until {@code condition} holds. */
    static Cli status(Predicate<Cli> condition, String... args) throws InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "status";
        System.arraycopy(args, 0, command, 1, args.length);
        return until("status condition", () -> Cli.execute(command), condition, 120_000, 100);
    }

    /**
     * Returns once {@code file} exists; woken by the changes in its directory, which must exist.
     *
     * @throws AssertionError naming {@code what} if it does not exist within {@code timeoutMs}
     */
    static void file(String what, Path file, long timeoutMs) throws InterruptedException {
        // false only if the watch service was closed under the wait: then the file is not there, and the caller must not go on
        if (!inDirectory(what, file.getParent(), false, new CompletableFuture<>(), timeoutMs, () -> Files.exists(file))) {
            throw new AssertionError(what + ": the wait for " + file + " ended without it (its watch service was closed)");
        }
    }

    /**
     * Waits until {@code done} holds or {@code unless} completes, checking {@code done} whenever
     * {@code dir} (and, with {@code subdirectories}, a directory in it) changes.
     *
     * @return whether {@code done} holds: false only when {@code unless} completed first
     * @throws AssertionError naming {@code what} if neither happens within {@code timeoutMs}
     */
    static boolean inDirectory(String what, Path dir, boolean subdirectories, CompletableFuture<?> unless, long timeoutMs,
            BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (WatchService watcher = dir.getFileSystem().newWatchService()) {
            unless.whenComplete((result, failure) -> close(watcher));   // its end wakes the wait
            while (true) {
                watch(dir, subdirectories, watcher);   // before the check, so that no change after it is missed
                if (done.getAsBoolean()) return true;
                WatchKey key = watcher.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (key == null) throw new AssertionError(what + " did not happen within " + timeoutMs + " ms");
                key.pollEvents();   // which change does not matter: done says what holds now
                key.reset();
            }
        } catch (ClosedWatchServiceException e) {
            return done.getAsBoolean();   // unless completed
        } catch (IOException e) {
            throw new UncheckedIOException("cannot watch " + dir + " for " + what, e);
        }
    }

    private static void watch(Path dir, boolean subdirectories, WatchService watcher) throws IOException {
        dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        if (!subdirectories) return;
        try (var entries = Files.list(dir)) {
            for (Path sub : entries.filter(Files::isDirectory).toList()) {
                try {
                    watch(sub, false, watcher);   // registering one again keeps its key
                } catch (NoSuchFileException e) {
                    // deleted since the listing: nothing to watch
                }
            }
        }
    }

    private static void close(WatchService watcher) {
        try {
            watcher.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
