package io.dsa.agent.internal;

import io.dsa.agent.wire.StatusMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Where this node's workers are, from their own records ({@link WorkerThread}): one line per
 * worker that has not finished, naming the node, the worker's thread ids and what it waits for
 * (the barrier and its epoch, the partition and its array, the lock, the node a call waits on), or
 * {@code running} with the top frames of its stack. Node 0 also gathers every node's lines
 * ({@link #gather}): it asks with a {@link StatusMessage#WORKERS_QUERY}, each node answers with a
 * {@link StatusMessage#WORKERS} carrying its lines. Used when a job times out and by
 * {@code dsa status --stacks}.
 *
 * <p>Threads: workers register; the I/O thread answers queries and collects answers; any thread
 * may ask for lines or gather.
 */
final class WorkerReports {
    /** Stack frames shown for a running worker. */
    static final int RUNNING_FRAMES = 4;
    /** A node's answer is cut to this many characters, so it fits the smallest frame. */
    static final int MAX_ANSWER_CHARS = 3_000;

    private final NodeRuntime rt;
    private final List<WorkerThread> workers = new CopyOnWriteArrayList<>();
    /** Node 0: the answers of the latest gather, by node. */
    private final Map<Integer, String> answers = new TreeMap<>();
    private long query;

    WorkerReports(NodeRuntime rt) { this.rt = rt; }

    /** A worker of this node's current run starts; it replaces the worker of the same index of an earlier run. */
    void add(WorkerThread w) {
        workers.removeIf(old -> old.localIndex == w.localIndex);
        workers.add(w);
    }

    /**
     * @return one line per worker of this node that has not finished, in thread order; if every
     *         worker finished (or none started), one line that says so
     */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        List<WorkerThread> sorted = new ArrayList<>(workers);
        sorted.sort((a, b) -> Integer.compare(a.localIndex, b.localIndex));
        long now = System.nanoTime();
        int finished = 0;
        for (WorkerThread w : sorted) {
            WorkerThread.State s = w.state();
            if (!s.unfinished()) {
                finished++;
                continue;
            }
            lines.add(worker(w) + ": " + describe(w, s, now));
        }
        if (lines.isEmpty()) {
            lines.add("node " + rt.nodeId + ": " + (sorted.isEmpty() ? "no workers started" : "all " + finished + " workers finished"));
        }
        return lines;
    }

    private String worker(WorkerThread w) {
        return "node " + rt.nodeId + " thread " + (rt.nodeId * rt.threadsPerNode + w.localIndex) + " (local " + w.localIndex + ")";
    }

    private static String describe(WorkerThread w, WorkerThread.State s, long nowNs) {
        String since = String.format(" for %.1f s", (nowNs - s.sinceNs()) / 1e9);
        return switch (s.kind()) {
            case WorkerThread.GLOBAL_BARRIER -> "waits in the global barrier at epoch " + s.detail() + since;
            case WorkerThread.LOCAL_BARRIER -> "waits in the local barrier at generation " + s.detail() + since;
            case WorkerThread.GROUP_BARRIER -> "waits in barrier '" + s.subject() + "' at generation " + s.detail() + since;
            case WorkerThread.PARTITION -> {
                ArrayState a = (ArrayState) s.subject();
                int p = (int) s.detail();
                yield "waits to " + ((s.detail() & WorkerThread.WRITE) != 0 ? "write" : "read") + " partition " + p + " of array '"
                        + a.spec.name() + "' (home node " + a.layout.homeOf(p) + ")" + since;
            }
            case WorkerThread.LOCK -> "waits for lock '" + s.subject() + "'"
                    + (s.detail() == 0 ? " (held or asked for by another thread of this node)" : " (asked its home, node 0)") + since;
            case WorkerThread.CALL -> "waits for node " + s.detail() + " to answer a " + s.subject() + since;
            default -> "running" + frames(w.getStackTrace());
        };
    }

    private static String frames(StackTraceElement[] stack) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < stack.length && i < RUNNING_FRAMES; i++) b.append("\n\tat ").append(stack[i]);
        if (stack.length > RUNNING_FRAMES) b.append("\n\t... ").append(stack.length - RUNNING_FRAMES).append(" more");
        return b.toString();
    }

    /** This node's lines as one answer text, cut to {@link #MAX_ANSWER_CHARS}. */
    String answer() {
        String text = String.join("\n", lines());
        return text.length() <= MAX_ANSWER_CHARS ? text : text.substring(0, MAX_ANSWER_CHARS) + "\n... (cut)";
    }

    // ---- node 0: every node's lines ------------------------------------------------------------------

    /** Node 0 asks: answer with this node's lines; on the I/O thread. */
    void onQuery(StatusMessage m) {
        rt.peers().send(0, new StatusMessage(rt.nodeId, StatusMessage.WORKERS, m.text() + "\n" + answer()));
    }

    /** A node's answer; on node 0's I/O thread. Answers of an earlier gather are dropped. */
    synchronized void onAnswer(StatusMessage m) {
        int nl = m.text().indexOf('\n');
        if (nl < 0 || !m.text().substring(0, nl).equals(Long.toString(query))) return;
        answers.put(m.node(), m.text().substring(nl + 1));
        notifyAll();
    }

    /**
     * Node 0: asks every node where its workers are and waits up to {@code timeoutMs} for the answers.
     *
     * @return every node's lines in node order; a node that did not answer in time gets a line that says so
     */
    List<String> gather(long timeoutMs) throws InterruptedException {
        long q;
        synchronized (this) {
            q = ++query;
            answers.clear();
        }
        rt.peers().sendToAll(new StatusMessage(rt.nodeId, StatusMessage.WORKERS_QUERY, Long.toString(q)));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Map<Integer, String> got;
        synchronized (this) {
            while (answers.size() < rt.nodes) {
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0) break;
                wait(leftMs);
            }
            got = new TreeMap<>(answers);
        }
        List<String> lines = new ArrayList<>();
        for (int node = 0; node < rt.nodes; node++) {
            String text = got.get(node);
            if (text == null) {
                lines.add("node " + node + ": did not answer within " + timeoutMs + " ms");
            } else {
                lines.addAll(List.of(text.split("\n(?!\t)")));
            }
        }
        return lines;
    }
}
