package io.dsa.coherence;

/** Maps a partition to its home node. */
@FunctionalInterface
public interface HomeResolver {
    /** @return the home node of {@code partition} of array {@code arrayId} */
    int homeOf(int arrayId, int partition);
}
