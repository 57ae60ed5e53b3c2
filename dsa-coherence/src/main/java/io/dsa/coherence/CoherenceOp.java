package io.dsa.coherence;

/**
 * Coherence message types with their wire codes. The constructor checks that codes are unique
 * and in range, so a duplicated code fails at class initialisation, not on the wire.
 */
public enum CoherenceOp {
    /** requester to home: wants a shared (read) copy */
    GET_S(1, false),
    /** requester to home: wants exclusive (write) ownership; an upgrade if the requester is a sharer */
    GET_M(2, false),
    /** home to requester: shared copy, with data */
    DATA_S(3, true),
    /** home to requester: exclusive ownership; with data, or without when the requester already holds a valid shared copy */
    DATA_M(4, true),
    /** home to sharer: drop your copy and acknowledge */
    INV(5, false),
    /** sharer to home: copy dropped */
    INV_ACK(6, false),
    /** home to exclusive owner: downgrade to shared and send me the data (intervention forwarding) */
    FWD_GET_S(7, false),
    /** home to exclusive owner: give up the partition and send me the data */
    FWD_GET_M(8, false),
    /** owner to home: answer to FWD_GET_S, data attached, owner is now a sharer */
    OWNER_DATA(9, true),
    /** owner to home: answer to FWD_GET_M, data attached, owner is now invalid */
    OWNER_RELEASE(10, true),
    /**
     * home to a node that holds no copy: a shared copy it did not ask for, data attached; the node
     * is a sharer from now on and answers PUSH_ACK (see {@link CoherenceEngine#push})
     */
    PUSH_S(11, true),
    /** pushed node to home: the pushed copy is installed */
    PUSH_ACK(12, false),
    /**
     * requester to home: wants exclusive ownership to overwrite every byte of the partition, so it
     * needs no data: served as {@link #GET_M}, but the DATA_M that grants it carries none (see
     * {@link CoherenceEngine#requestOverwrite})
     */
    GET_M_OVERWRITE(13, false),
    /**
     * home to exclusive owner: give up the partition for a requester that overwrites all of it
     * (its GET_M_OVERWRITE), so send no data: the OWNER_RELEASE that answers carries none
     */
    FWD_GET_M_OVERWRITE(14, false),
    /**
     * sharer to home: I dropped my shared copy unasked (self-invalidation, see
     * {@link CoherenceEngine#drop}); the home no longer counts me a sharer and answers PUT_ACK
     */
    PUT_S(15, false),
    /** home to a node that dropped its copy: your PUT_S is processed */
    PUT_ACK(16, false);

    /** Codes are in [1, {@value #CODES}). */
    private static final int CODES = 32;
    private static final CoherenceOp[] BY_CODE = new CoherenceOp[CODES];

    static {
        for (CoherenceOp op : values()) {
            if (BY_CODE[op.code] != null) {
                throw new IllegalStateException("duplicate coherence op code " + op.code + ": " + BY_CODE[op.code] + ", " + op);
            }
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final boolean mayCarryData;

    CoherenceOp(int code, boolean mayCarryData) {
        if (code <= 0 || code >= CODES) throw new IllegalArgumentException("code " + code + " out of range [1, " + CODES + ")");
        this.code = code;
        this.mayCarryData = mayCarryData;
    }

    /** @return the wire code, in {@code [1, 32)} */
    public int code() { return code; }

    /** @return whether messages of this type may carry partition data */
    public boolean mayCarryData() { return mayCarryData; }

    /** @return the op with wire code {@code code}, or {@code null} if none */
    public static CoherenceOp fromCode(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
