package io.dsa.agent.cli;

import io.dsa.agent.RunReport;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Helpers to run a job off the command thread and to print its outcome. */
final class Jobs {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadFactory DAEMONS = r -> {
        Thread t = new Thread(r, "dsa-job-" + THREADS.incrementAndGet());
        t.setDaemon(true);   // a job hung past its timeout must not keep the JVM alive
        return t;
    };

    private Jobs() {}

    /** Starts {@code job} on a daemon thread, so the caller can wait for it with a timeout. */
    static <T> CompletableFuture<T> start(Supplier<T> job) {
        CompletableFuture<T> future = new CompletableFuture<>();
        DAEMONS.newThread(() -> {
            try {
                future.complete(job.get());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        }).start();
        return future;
    }

    /** Prints every report line, then the timings. */
    static void printReport(PrintWriter out, RunReport report) {
        for (String line : report.lines()) out.println(line);
        out.printf("VM startup: %.1f ms (%d nodes x %d threads)%n", report.startupNanos() / 1e6, report.nodes(),
                report.threadsPerNode());
        out.printf("run: %.1f ms%n", report.runNanos() / 1e6);
        out.flush();
    }

    /** Prints {@code result: OK}. */
    static void printOk(PrintWriter out) {
        out.println("result: OK");
        out.flush();
    }

    /** Prints {@code result: FAILED: reason}; the lines of a reason after its first (a worker's stack trace) follow it. */
    static void printFailed(PrintWriter out, String reason) {
        out.println("result: FAILED: " + reason);
        out.flush();
    }

    /** How long a timed-out job's nodes get to say where their workers are. */
    static final long WORKERS_ANSWER_MS = 2_000;

    /**
     * @return the failure of a job that timed out after {@code seconds}: that, then where every
     *         unfinished worker is ({@code workerLines}, as {@code DsaAgent.workerLines} gives them),
     *         one indented line each
     */
    static String timedOut(long seconds, java.util.List<String> workerLines) {
        StringBuilder b = new StringBuilder("timed out after " + seconds + " s; where the workers are:");
        for (String line : workerLines) b.append("\n  ").append(line.replace("\n\t", "\n    \t"));
        return b.toString();
    }

    /** @return a one-line description of a failure, without the wrappers of futures */
    static String describe(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        if (message == null || message.isBlank()) return cause.getClass().getName();
        if (cause instanceof io.dsa.DsaException || cause instanceof IllegalArgumentException) return message;
        return cause.getClass().getSimpleName() + ": " + message;
    }
}
