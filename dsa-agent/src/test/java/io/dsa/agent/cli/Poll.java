package io.dsa.agent.cli;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits for a condition that another process makes true and that gives no notification (a host's
 * status, a file a job writes): probes it at an interval until it holds or the deadline passes.
 * The one place the host system tests sleep.
 */
final class Poll {
    private Poll() {}

    /**
     * @return the first probe result that satisfies {@code done}
     * @throws AssertionError after {@code timeoutMs}, naming {@code what} and the last result
     */
    static <T> T until(String what, Supplier<T> probe, Predicate<T> done, long timeoutMs, long intervalMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        T last;
        while (true) {
            last = probe.get();
            if (done.test(last)) return last;
            if (System.nanoTime() > deadline) break;
            Thread.sleep(intervalMs);   // the other process offers nothing to wait on
        }
        throw new AssertionError(what + " did not happen within " + timeoutMs + " ms; last:\n" + last);
    }

    /** Polls {@code dsa status ARGS} every 100 ms for up to 120 s (a loaded machine starts JVMs slowly) until {@code condition} holds. */
    static Cli status(Predicate<Cli> condition, String... args) throws InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "status";
        System.arraycopy(args, 0, command, 1, args.length);
        return until("status condition", () -> Cli.execute(command), condition, 120_000, 100);
    }
}
