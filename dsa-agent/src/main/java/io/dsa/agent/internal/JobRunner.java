package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.RunReport;
import io.dsa.agent.wire.ViewMessage;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Runs one program on one node: setup, the workers, and the wait for the whole VM to finish. */
public final class JobRunner {
    private JobRunner() {}

    /**
     * @return the report (every node's lines on node 0)
     * @throws DsaException with the job's first failure
     */
    public static RunReport run(NodeRuntime rt, DsaProgram program, List<String> args) {
        return run(rt, program, args, 0);
    }

    /**
     * Runs the program with every worker starting at {@code startEpoch} (a migrated node resuming:
     * {@code setup} runs again, then {@code work} is entered with {@code worker.epoch() == startEpoch}).
     *
     * @return the report, or null if this node moved to another agent while it ran
     * @throws DsaException with the job's first failure
     */
    public static RunReport run(NodeRuntime rt, DsaProgram program, List<String> args, long startEpoch) {
        if (rt.checkpoints != null) {
            if (!program.resumable()) throw new DsaException(io.dsa.agent.checkpoint.CheckpointStore.notResumable(program.getClass().getName(),
                    rt.config.checkpointEvery()));
            rt.checkpoints.jobStarted(program.getClass().getName(), args, startEpoch);
        }
        ViewMessage view = rt.membership.await();
        long runStart = System.nanoTime();
        AtomicReference<Throwable> firstLocal = new AtomicReference<>();
        NodeContext node = new NodeContext(rt, args);
        boolean setupOk = true;
        try {
            program.setup(node);
        } catch (Throwable t) {
            setupOk = false;
            fail(rt, firstLocal, t, "node " + rt.nodeId + " setup");
        }
        if (setupOk) {
            WorkerThread[] threads = new WorkerThread[rt.threadsPerNode];
            for (int i = 0; i < threads.length; i++) {
                WorkerImpl w = new WorkerImpl(rt, node, i, startEpoch);
                rt.snapshots.addWorker(w);
                WorkerThread[] self = threads;
                int index = i;
                threads[i] = new WorkerThread(rt, i, () -> {
                    if (rt.config.bindCores()) CoreBinding.bindCurrentThread(rt.config.coreShare(), rt.config.coreShares());
                    w.bind();
                    boolean failed = true;
                    try {
                        program.work(w);
                        failed = false;
                    } catch (Throwable t) {
                        fail(rt, firstLocal, t, "node " + rt.nodeId + " worker " + w.threadId());
                    } finally {
                        self[index].ended(failed);
                    }
                });
                rt.workers.add(threads[i]);
                threads[i].start();
            }
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new DsaException("interrupted while waiting for the workers of node " + rt.nodeId);
                }
            }
        }
        if (rt.job.movedAway()) return null; // the node's new agent reports for it
        if (rt.checkpoints != null && rt.nodeId == 0) rt.checkpoints.awaitPending();   // the last one's files, after its release
        rt.job.reportDone();
        String failure = rt.job.awaitFinished();
        long runNanos = System.nanoTime() - runStart;
        if (!failure.isEmpty()) {
            throw new DsaException("job failed: " + failure, firstLocal.get());
        }
        return new RunReport(rt.nodes, rt.threadsPerNode, rt.reportLines(), rt.membership.startupNanos(), runNanos);
    }

    private static void fail(NodeRuntime rt, AtomicReference<Throwable> first, Throwable t, String where) {
        if (t instanceof JobLifecycle.MovedAway) return; // the node moved: its new agent goes on
        // a worker released by someone else's failure is not the cause: report only our own
        if (rt.job.failed() && t instanceof DsaException) return;
        first.compareAndSet(null, t);
        rt.reportFailure(where + " failed: " + t + stackTrace(t));
    }

    /** Frames of a failure's stack trace shown at most, not counting its causes'. */
    static final int MAX_FRAMES = 24;

    /**
     * The program's part of {@code t}'s stack trace, one {@code "\n\tat ..."} line per frame: the
     * frames up to where DSA called the program (those below are the same in every job), at most
     * {@value #MAX_FRAMES}, then each cause the same way. The first line of a failure stays its
     * message; launchers print the rest below it.
     */
    static String stackTrace(Throwable t) {
        StringBuilder b = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            if (c != t) b.append("\nCaused by: ").append(c);
            StackTraceElement[] frames = c.getStackTrace();
            int shown = 0;
            for (StackTraceElement f : frames) {
                if (f.getClassName().equals(JobRunner.class.getName()) || shown == MAX_FRAMES) break;
                b.append("\n\tat ").append(f);
                shown++;
            }
            if (shown < frames.length) b.append("\n\t... ").append(frames.length - shown).append(" more");
        }
        return b.toString();
    }
}
