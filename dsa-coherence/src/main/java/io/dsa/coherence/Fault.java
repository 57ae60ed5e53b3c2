package io.dsa.coherence;

/**
 * Known protocol bugs that a {@link CoherenceEngine} can be made to commit, so tests can check that
 * the model checker finds each of them. Package-private: the runtime cannot switch one on.
 */
enum Fault {
    /** the home completes an invalidation on the first acknowledgement instead of the last */
    ACK_NOT_AWAITED,
    /** the home answers a read from its own memory while another node holds the partition exclusive */
    STALE_HOME_READ,
    /**
     * the home does not block the partition while a write is forwarded to the owner: it records the
     * new owner at once, so a later request can be forwarded to a node that has no data yet
     */
    FORWARD_NOT_BLOCKING,
    /**
     * a node that receives a pushed copy (PUSH_S) while its own write request is under way takes the
     * push for the answer and forgets the request, although a push grants reads only
     */
    PUSH_ENDS_WRITE_REQUEST,
    /**
     * the home grants an overwrite request (GET_M_OVERWRITE) of a node that holds no copy at once,
     * without invalidating the sharers first: it needs no data, but the other copies must still go
     */
    OVERWRITE_SKIPS_INVALIDATION,
    /** a node that drops its shared copy (PUT_S) keeps its workers' read access to it */
    DROP_KEEPS_ACCESS,
    /**
     * the home, on a sharer's PUT_S, forgets every sharer instead of that one, so it takes write
     * access back while other nodes still read their copies
     */
    DROP_FORGETS_OTHER_SHARERS
}
