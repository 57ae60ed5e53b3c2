package io.dsa.coherence;

/**
 * Bugs a node's owner-computes scopes can be made to commit in the {@link ClusterModel} (ops
 * {@code E} and {@code X}, {@link ModelOp}), so tests can show the explorer finds each: the two
 * places where dsa-agent's {@code Scopes} takes its home partitions before it copies
 * ({@code withHomesOwned}).
 */
enum ScopeFault {
    /** the entry copies the home's data into the plain array without taking the partition first (another node may hold a newer write) */
    ENTRY_WITHOUT_OWNERSHIP,
    /** the exit copies the plain array back without taking the partition again (a copy served during the scope stays valid) */
    EXIT_WITHOUT_OWNERSHIP
}
