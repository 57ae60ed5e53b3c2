package io.dsa.examples;

/** Deterministic pseudo-random values from a seed and an index (SplitMix64), the same on every node. */
final class Seeded {
    private Seeded() {}

    /** @return a well-mixed 64-bit value for {@code (seed, stream, index)} */
    static long mix(long seed, long stream, long index) {
        long z = seed * 0x9E3779B97F4A7C15L + stream * 0xBF58476D1CE4E5B9L + index * 0x94D049BB133111EBL + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return a value in {@code [lo, hi]} for {@code (seed, stream, index)} */
    static int between(long seed, long stream, long index, int lo, int hi) {
        return lo + (int) Long.remainderUnsigned(mix(seed, stream, index), (long) hi - lo + 1);
    }
}
