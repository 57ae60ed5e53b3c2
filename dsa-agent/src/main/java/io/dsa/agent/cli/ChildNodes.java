package io.dsa.agent.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The child processes of {@code dsa run}, one per node 1..N-1: starts them, forwards their
 * output with a {@code [node k]} prefix, reports the first one to fail, and ends them all.
 * Every process started here is ended by {@link #close()}, and by a shutdown hook if the
 * launcher itself is stopped.
 */
final class ChildNodes implements AutoCloseable {
    /** How long children get to exit after SIGTERM before they are killed. */
    static final long GRACE_MS = 5_000;

    private final PrintWriter out;
    private final PrintWriter err;
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final List<Thread> forwarders = new ArrayList<>();
    private final CompletableFuture<String> firstFailure = new CompletableFuture<>();
    private final Thread shutdownHook = new Thread(this::killAll, "dsa-children-shutdown");

    ChildNodes(PrintWriter out, PrintWriter err) {
        this.out = out;
        this.err = err;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts node {@code nodeId} with {@code command} and writes {@code stdin} to its standard
     * input, which is then closed: the pipe is how a secret reaches the child without touching a
     * command line, the environment or a file.
     *
     * @throws IOException if the process cannot be started
     * @throws io.dsa.DsaException naming the node if it ended before its input was written
     * @throws InterruptedException if interrupted while waiting for such a node to end
     */
    synchronized void start(int nodeId, List<String> command, byte[] stdin) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
        Process process = builder.start();
        try (java.io.OutputStream in = process.getOutputStream()) {
            in.write(stdin);
        } catch (IOException e) {   // it ended before reading its input: name the node, not the pipe
            process.destroyForcibly();
            String exit = process.waitFor(GRACE_MS, TimeUnit.MILLISECONDS) ? " with code " + process.exitValue() : "";
            throw new io.dsa.DsaException("node " + nodeId + " (pid " + process.pid() + ") ended" + exit
                    + " before it could read its start data (" + e.getMessage() + ")", e);
        }
        processes.put(nodeId, process);
        forwarders.add(forward(process.getInputStream(), out, nodeId, "out"));
        forwarders.add(forward(process.getErrorStream(), err, nodeId, "err"));
        process.onExit().thenAccept(p -> {
            if (p.exitValue() != 0) firstFailure.complete("node " + nodeId + " exited with code " + p.exitValue());
        });
    }

    /** Exit codes above this are a death by a signal (128 + its number), as the JDK reports them on Unix. */
    static final int SIGNAL_EXIT_BASE = 128;

    /** @return whether a child has ended by a signal (killed, crashed) so far; before {@link #destroyAll} ends any */
    synchronized boolean endedBySignal() {
        for (Process p : processes.values()) if (!p.isAlive() && p.exitValue() > SIGNAL_EXIT_BASE) return true;
        return false;
    }

    /** @return completes with a reason when the first child exits with a non-zero code */
    CompletableFuture<String> firstFailure() { return firstFailure; }

    /** @return the child processes by node id */
    synchronized Map<Integer, Process> processes() { return Map.copyOf(processes); }

    /**
     * Waits until every child has exited, at most {@code timeoutMs}.
     *
     * @return null if all exited with code 0, else the reason they did not
     */
    String awaitExit(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (Map.Entry<Integer, Process> e : processes().entrySet()) {
            long leftNs = deadline - System.nanoTime();
            if (!e.getValue().waitFor(Math.max(0, leftNs), TimeUnit.NANOSECONDS)) {
                return "node " + e.getKey() + " did not exit within " + timeoutMs + " ms after the job finished";
            }
        }
        for (Map.Entry<Integer, Process> e : processes().entrySet()) {
            int code = e.getValue().exitValue();
            if (code != 0) return "node " + e.getKey() + " exited with code " + code;
        }
        return null;
    }

    /**
     * Kills node {@code nodeId}'s process by PID (SIGKILL, which also ends a stopped one) and its
     * descendants, without a grace time, if it is one of these children and still runs. For a node
     * the job lost: stopped or cut off, it would only use up the grace times of {@link #awaitExit}
     * and {@link #destroyAll} (10 s before a restart).
     */
    void kill(int nodeId) {
        Process p = processes().get(nodeId);
        if (p == null || !p.isAlive()) return;
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /** Ends every child still running: SIGTERM, then after {@link #GRACE_MS} a kill. Waits for them. */
    void destroyAll() throws InterruptedException {
        for (Process p : processes().values()) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
        for (Process p : processes().values()) {
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        for (Process p : processes().values()) p.waitFor();
    }

    /** Waits (at most {@link #GRACE_MS} each) until the output of every exited child has been forwarded. */
    void drainOutput() {
        try {
            for (Thread t : forwarders) t.join(GRACE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.flush();
        err.flush();
    }

    /** Ends every child still running (killing them at once if interrupted) and forwards their last output. */
    @Override
    public void close() {
        try {
            destroyAll();
        } catch (InterruptedException e) {
            killAll();
            Thread.currentThread().interrupt();
        }
        drainOutput();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down; the hook runs
        }
    }

    private void killAll() {
        for (Process p : processes().values()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static Thread forward(InputStream stream, PrintWriter target, int nodeId, String which) {
        Thread t = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    synchronized (target) {
                        // a progress line names its node already
                        target.println(ProgressPrinter.LINE.matcher(line).matches() ? line : "[node " + nodeId + "] " + line);
                        target.flush();
                    }
                }
            } catch (IOException e) {
                // the process ended and its pipe closed
            }
        }, "dsa-node-" + nodeId + "-" + which);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
