package io.dsa.agent.internal;

/**
 * One barrier round's collective values at one gathering point (a node's workers, the monitor's
 * nodes, node 0's central count, a k-ary subtree). Every arrival brings the same number of values
 * per thread, its <em>width</em>: 0 for a plain barrier, 1 for the scalar collectives, the array
 * length for {@code allReduce(double[]/long[])}. The first arrival sets the width; a later one with
 * another width is a mismatch, kept as a text naming both. Values are gathered thread-major: thread
 * {@code t}'s values are {@code [t * width, (t + 1) * width)}. Not thread-safe: the owner guards it.
 */
final class Contributions {
    static final long[] NONE = new long[0];

    private final int threads;
    private final String unit;
    private int width = -1;
    private int firstSource;
    private long[] gathered;
    private String mismatch;

    /**
     * @param threads threads whose values one round gathers (the length of a round's result, in widths)
     * @param unit what an arrival's source id counts, "thread" or "node", for the mismatch text
     */
    Contributions(int threads, String unit) {
        this.threads = threads;
        this.unit = unit;
    }

    /**
     * Checks an arrival's width against the round's. @return false if it differs (the round then
     * has a {@link #mismatch()}; the arrival's values are not to be put)
     */
    boolean accept(int source, int width) {
        if (this.width < 0) {
            this.width = width;
            this.firstSource = source;
            return true;
        }
        if (width == this.width) return true;
        if (mismatch == null) {
            // the lower source first, so that the text does not depend on which arrived first
            mismatch = source < firstSource ? describe(source, width) + ", " + describe(firstSource, this.width)
                    : describe(firstSource, this.width) + ", " + describe(source, width);
        }
        return false;
    }

    /** Copies {@code count} threads' values, {@code width} each, from {@code src[from..]} to thread {@code thread}'s place. */
    void put(long[] src, int from, int thread, int count) {
        if (width == 0) return;
        if (gathered == null) gathered = new long[threads * width];
        System.arraycopy(src, from, gathered, thread * width, count * width);
    }

    /** @return the round's width, or -1 before any arrival */
    int width() { return width; }

    /** @return the text naming the two widths that differed, or null */
    String mismatch() { return mismatch; }

    /** Ends the round. @return the gathered values, {@link #NONE} for a plain round; a new array each collective round */
    long[] take() {
        long[] out = gathered == null ? NONE : gathered;
        gathered = null;
        width = -1;
        mismatch = null;
        return out;
    }

    private String describe(int source, int w) {
        String who = unit + " " + source;
        if (w == 0) return who + " called a plain barrier";
        String each = unit.equals("thread") ? "" : " per thread";
        return who + " passed " + w + (w == 1 ? " value" : " values") + each;
    }
}
