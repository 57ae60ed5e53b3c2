package io.dsa.agent.internal;

import io.dsa.ArrayUse;
import io.dsa.coherence.Access;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scope switch ({@link io.dsa.DsaScope#next}) does differently from a close followed by an
 * open ({@link Scopes}): which arrays' release diffs ride the switch's round
 * ({@link #pushed}, docs/consistency.md "Diffs pushed in the switch"), which arrays keep their
 * caps across it ({@link #recapped}), and the caps a scope sets when it opens ({@link #caps}), which
 * a switch's last worker to leave sets before the round. Every node decides alike: the uses are the same at every
 * worker (the scopes' rounds check it), and so are the arrays. Stateless.
 */
final class ScopeSwitch {
    /**
     * Largest array whose release diffs a switch to its read cache pushes in its round (bytes of
     * the whole array): the round's release carries every node's diffs through node 0, so a larger
     * array's diffs go to the homes and its copies are fetched, all in flight at once.
     */
    static final long PUSH_MAX_ARRAY_BYTES = 256 * 1024;

    private ScopeSwitch() {}

    /**
     * @return the arrays whose release diffs the switch from {@code closing} to {@code next} pushes
     *         in its round: released in {@code closing}, read-cached in {@code next}, of at most
     *         {@link #PUSH_MAX_ARRAY_BYTES}. The caller asks only for a global scope whose barrier
     *         carries node payloads ({@link BarrierClient#carriesNodePayloads}).
     */
    static List<ArrayState> pushed(List<ArrayUse> closing, List<ArrayUse> next) {
        List<ArrayState> pushed = new ArrayList<>();
        for (ArrayUse c : closing) {
            if (c.behaviour() != ArrayUse.Behaviour.RELEASE) continue;
            ArrayState a = state(c);
            long bytes = (long) a.layout.rows() * a.layout.cols() * a.spec.elementType().bytes();
            if (bytes > PUSH_MAX_ARRAY_BYTES) continue;
            for (ArrayUse n : next) if (n.array() == c.array() && n.behaviour() == ArrayUse.Behaviour.READ_CACHE) pushed.add(a);
        }
        return List.copyOf(pushed);
    }

    /**
     * @return the arrays whose caps the switch from {@code closing} to {@code next} leaves in place
     *         when {@code closing} ends, because {@code next} caps them again when it opens: a read
     *         cache, release or accumulate scope in both (owner computes copies its partitions in
     *         and out around its caps, so it keeps its own order). No worker of the node touches
     *         them in between: all are inside the switch.
     */
    static List<ArrayState> recapped(List<ArrayUse> closing, List<ArrayUse> next) {
        List<ArrayState> kept = new ArrayList<>();
        for (ArrayUse c : closing) {
            if (c.behaviour() == ArrayUse.Behaviour.OWNER_COMPUTES) continue;
            for (ArrayUse n : next) {
                if (n.array() == c.array() && n.behaviour() != ArrayUse.Behaviour.OWNER_COMPUTES) kept.add(state(c));
            }
        }
        return List.copyOf(kept);
    }

    /**
     * @return the caps a scope over {@code uses} sets when it opens (owner computes' aside, which it
     *         sets after copying its partitions): a read cache at READ, release and accumulate at NONE
     */
    static Map<ArrayState, Access> caps(List<ArrayUse> uses) {
        Map<ArrayState, Access> caps = new LinkedHashMap<>();
        for (ArrayUse u : uses) {
            switch (u.behaviour()) {
                case READ_CACHE -> caps.put(state(u), Access.READ);
                case RELEASE, ACCUMULATE -> caps.put(state(u), Access.NONE);
                case OWNER_COMPUTES -> { }
            }
        }
        return caps;
    }

    /** @return whether {@code uses} names an array owner-computes */
    static boolean ownerComputes(List<ArrayUse> uses) {
        for (ArrayUse u : uses) if (u.behaviour() == ArrayUse.Behaviour.OWNER_COMPUTES) return true;
        return false;
    }

    private static ArrayState state(ArrayUse u) { return ((AbstractSharedArray) u.array()).state; }
}
