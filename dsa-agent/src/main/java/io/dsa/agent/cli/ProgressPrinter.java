package io.dsa.agent.cli;

import io.dsa.agent.ProgressListener;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Prints the programs' progress lines ({@link io.dsa.DsaNode#progress(String)}) as
 * {@code [  12.3 s] node K: line}, the seconds counted from the job's start.
 */
final class ProgressPrinter implements ProgressListener {
    /** What a printed progress line looks like: a child's are forwarded without the {@code [node K]} prefix. */
    static final Pattern LINE = Pattern.compile("^\\[ *\\d+\\.\\d s\\] node \\d+: .*");

    private final PrintWriter out;
    private final long startMs;

    /** @param startMs the job's start, {@link System#currentTimeMillis()} (a child gets its launcher's) */
    ProgressPrinter(PrintWriter out, long startMs) {
        this.out = out;
        this.startMs = startMs;
    }

    @Override
    public void onProgress(int nodeId, String line) {
        String text = format(System.currentTimeMillis() - startMs, nodeId, line);
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    /** @return the printed form of a progress line, {@code elapsedMs} after the job's start */
    static String format(long elapsedMs, int nodeId, String line) {
        String oneLine = line.replace('\n', ' ').replace('\r', ' ');
        return String.format(Locale.ROOT, "[%6.1f s] node %d: %s", Math.max(0, elapsedMs) / 1000.0, nodeId, oneLine);
    }
}
