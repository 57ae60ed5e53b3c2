package io.dsa.coherence;

import io.dsa.CacheState;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The cache side of one node's {@link CoherenceEngine}: the cache entries of the partitions homed
 * elsewhere and every transition of a copy (docs/coherence.md): a miss asks the home once (misses
 * coalesce), the data installs the copy, and the home's invalidations and forwards take it away.
 * Not thread-safe, as the engine.
 */
final class CacheSide {
    private final int nodeId;
    /** The VM's node count now (it grows when a clone joins). */
    private final IntSupplier nodeCount;
    private final HomeResolver homes;
    private final PartitionStore store;
    private final Outbox outbox;
    /** cache entries of the partitions homed elsewhere, created on first use */
    final Map<Long, CacheEntry> cache = new HashMap<>();

    /** protocol bugs switched on by the model checker's tests (the engine's set); always empty in the runtime */
    private final EnumSet<Fault> faults;

    CacheSide(int nodeId, IntSupplier nodeCount, HomeResolver homes, PartitionStore store, Outbox outbox,
              EnumSet<Fault> faults) {
        this.nodeId = nodeId;
        this.faults = faults;
        this.nodeCount = nodeCount;
        this.homes = homes;
        this.store = store;
        this.outbox = outbox;
    }

    /** @return the entry of a partition homed elsewhere, made on first use */
    CacheEntry entry(int arrayId, int partition) {
        return cache.computeIfAbsent(CoherenceEngine.key(arrayId, partition),
                k -> new CacheEntry(nodeId, nodeCount.getAsInt(), arrayId, partition, homes.homeOf(arrayId, partition)));
    }

    /** @return the entry of a partition homed elsewhere, or null if it was never used */
    CacheEntry peek(int arrayId, int partition) {
        return cache.get(CoherenceEngine.key(arrayId, partition));
    }

    /** This node's workers need {@code needed} on a partition homed elsewhere: see {@link CoherenceEngine#request}. */
    boolean request(int arrayId, int partition, Access needed) {
        CacheEntry c = entry(arrayId, partition);
        if (c.access().allows(needed)) return true;
        boolean write = needed == Access.READ_WRITE;
        switch (c.pending) {
            case NONE -> {
                c.pending = write ? Pending.WRITE : Pending.READ;
                send(write ? CoherenceOp.GET_M : CoherenceOp.GET_S, c.arrayId, c.partition, c.home, nodeId, null);
            }
            // a write wanted while a read is under way: ask for ownership once the shared copy arrives
            case READ -> c.wantWrite |= write;
            case WRITE -> { /* the write under way grants reads too */ }
        }
        return false;
    }

    /**
     * A local worker will overwrite all of a partition homed elsewhere: see
     * {@link CoherenceEngine#requestOverwrite}. Without a copy or a request under way, asks for
     * ownership without data; otherwise as a write request.
     */
    boolean requestOverwrite(int arrayId, int partition) {
        if (!asksWithoutData(arrayId, partition)) return request(arrayId, partition, Access.READ_WRITE);
        CacheEntry c = entry(arrayId, partition);
        c.pending = Pending.WRITE;
        c.overwrite = true;
        send(CoherenceOp.GET_M_OVERWRITE, c.arrayId, c.partition, c.home, nodeId, null);
        return false;
    }

    /** @return whether {@link #requestOverwrite} would now ask without data: no valid copy here and no request under way */
    boolean asksWithoutData(int arrayId, int partition) {
        CacheEntry c = peek(arrayId, partition);
        return c == null || c.state == CacheState.INVALID && c.pending == Pending.NONE;
    }

    /** See {@link CoherenceEngine#canDrop}. */
    boolean canDrop(int arrayId, int partition) {
        CacheEntry c = peek(arrayId, partition);
        return c != null && c.state == CacheState.SHARED && c.pending == Pending.NONE && !c.wantWrite && !c.dropping;
    }

    /** See {@link CoherenceEngine#drop}. */
    boolean drop(int arrayId, int partition) {
        if (!canDrop(arrayId, partition)) return false;
        CacheEntry c = peek(arrayId, partition);
        if (!faults.contains(Fault.DROP_KEEPS_ACCESS)) store.setAccess(c.arrayId, c.partition, Access.NONE);
        c.transitionTo(CacheState.INVALID, "dropped (PUT_S)");
        c.dropping = true;
        send(CoherenceOp.PUT_S, c.arrayId, c.partition, c.home, nodeId, null);
        return true;
    }

    /** A message for a cache of its partition (checked by the engine). */
    void onMessage(CoherenceMessage m) {
        CacheEntry c = entry(m.arrayId(), m.partition());
        if (m.source() != c.home) throw CoherenceEngine.unexpected(nodeId, m, c, "only the home " + c.home + " sends this");
        switch (m.op()) {
            case DATA_S -> {
                if (c.state != CacheState.INVALID || c.pending != Pending.READ || m.data() == null || c.dropping) {
                    throw CoherenceEngine.unexpected(nodeId, m, c, "expected INVALID with a read under way, no drop under way, and data");
                }
                store.install(c.arrayId, c.partition, m.data(), Access.READ);
                c.transitionTo(CacheState.SHARED, "DATA_S");
                readAnswered(c);
            }
            case DATA_M -> {
                if (c.pending != Pending.WRITE || c.dropping) {
                    throw CoherenceEngine.unexpected(nodeId, m, c, "expected a write under way and no drop (the home acks a PUT_S first)");
                }
                if (c.overwrite) {
                    // an overwrite: the store writes the worker's bytes over the copy, a stale one or a shared one pushed
                    // meanwhile (then the home granted an upgrade), before the access; the home never sends data for it
                    // (installing some would leave the worker's claimed bytes unwritten, and the worker waiting for them)
                    if (m.data() != null || c.state == CacheState.EXCLUSIVE) {
                        throw CoherenceEngine.unexpected(nodeId, m, c, "DATA_M without data for the overwrite under way");
                    }
                    store.overwrite(c.arrayId, c.partition);
                } else if (m.data() == null) {
                    // upgrade: the shared copy is current, because the home still counted us as a sharer
                    if (c.state != CacheState.SHARED) throw CoherenceEngine.unexpected(nodeId, m, c, "DATA_M without data needs a SHARED copy");
                    store.setAccess(c.arrayId, c.partition, Access.READ_WRITE);
                } else {
                    if (c.state != CacheState.INVALID) throw CoherenceEngine.unexpected(nodeId, m, c, "DATA_M with data expected an INVALID copy");
                    store.install(c.arrayId, c.partition, m.data(), Access.READ_WRITE);
                }
                c.pending = Pending.NONE;
                c.overwrite = false;
                c.transitionTo(CacheState.EXCLUSIVE, "DATA_M");
            }
            case PUSH_S -> {
                // the home pushes only to a node it does not list, and it lists every copy it gave out
                if (c.state != CacheState.INVALID || m.data() == null || c.dropping) {
                    throw CoherenceEngine.unexpected(nodeId, m, c, "expected INVALID, no drop under way, and data");
                }
                store.install(c.arrayId, c.partition, m.data(), Access.READ);
                c.transitionTo(CacheState.SHARED, "PUSH_S");
                send(CoherenceOp.PUSH_ACK, c.arrayId, c.partition, c.home, nodeId, null);
                // a read under way is answered (the home drops its GET_S); a write under way stays: its GET_M
                // finds this node a sharer and becomes an upgrade
                if (c.pending == Pending.READ || faults.contains(Fault.PUSH_ENDS_WRITE_REQUEST)) readAnswered(c);
            }
            case INV -> {
                if (c.state == CacheState.INVALID && c.dropping) {
                    // sent before the home saw our PUT_S (the home answers the PUT_S only after, in order): the copy is
                    // gone already, and the home's invalidation waits for this ack
                    send(CoherenceOp.INV_ACK, c.arrayId, c.partition, c.home, m.requester(), null);
                    break;
                }
                // a pending upgrade stays pending: the home removed us from the sharers, so it will send data
                if (c.state != CacheState.SHARED) throw CoherenceEngine.unexpected(nodeId, m, c, "INV needs a SHARED copy");
                store.setAccess(c.arrayId, c.partition, Access.NONE);
                c.transitionTo(CacheState.INVALID, "INV for " + m.requester());
                send(CoherenceOp.INV_ACK, c.arrayId, c.partition, c.home, m.requester(), null);
            }
            case FWD_GET_S -> {
                if (c.state != CacheState.EXCLUSIVE) throw CoherenceEngine.unexpected(nodeId, m, c, "FWD_GET_S needs the EXCLUSIVE copy");
                store.setAccess(c.arrayId, c.partition, Access.READ);   // before the snapshot: no write may be lost
                byte[] data = store.snapshot(c.arrayId, c.partition);
                c.transitionTo(CacheState.SHARED, "FWD_GET_S for " + m.requester());
                send(CoherenceOp.OWNER_DATA, c.arrayId, c.partition, c.home, m.requester(), data);
            }
            case FWD_GET_M -> {
                if (c.state != CacheState.EXCLUSIVE) throw CoherenceEngine.unexpected(nodeId, m, c, "FWD_GET_M needs the EXCLUSIVE copy");
                store.setAccess(c.arrayId, c.partition, Access.NONE);
                byte[] data = store.snapshot(c.arrayId, c.partition);
                c.transitionTo(CacheState.INVALID, "FWD_GET_M for " + m.requester());
                send(CoherenceOp.OWNER_RELEASE, c.arrayId, c.partition, c.home, m.requester(), data);
            }
            case FWD_GET_M_OVERWRITE -> {
                // the requester overwrites every byte: give the partition up without sending it
                if (c.state != CacheState.EXCLUSIVE) {
                    throw CoherenceEngine.unexpected(nodeId, m, c, "FWD_GET_M_OVERWRITE needs the EXCLUSIVE copy");
                }
                store.setAccess(c.arrayId, c.partition, Access.NONE);
                c.transitionTo(CacheState.INVALID, "FWD_GET_M_OVERWRITE for " + m.requester());
                send(CoherenceOp.OWNER_RELEASE, c.arrayId, c.partition, c.home, m.requester(), null);
            }
            case PUT_ACK -> {
                if (!c.dropping) throw CoherenceEngine.unexpected(nodeId, m, c, "no PUT_S awaiting this ack");
                c.dropping = false;
            }
            default -> throw CoherenceEngine.unexpected(nodeId, m, c, "not a message for a cache");
        }
    }

    /** The read under way got its copy: done, unless a write was wanted meanwhile, which is asked for now. */
    private void readAnswered(CacheEntry c) {
        c.pending = Pending.NONE;
        if (c.wantWrite) {
            c.wantWrite = false;
            c.pending = Pending.WRITE;
            send(CoherenceOp.GET_M, c.arrayId, c.partition, c.home, nodeId, null);
        }
    }

    /** @return whether no request of this node is under way on a partition homed elsewhere */
    boolean quiescent() {
        for (CacheEntry c : cache.values()) if (c.pending != Pending.NONE || c.wantWrite || c.dropping) return false;
        return true;
    }

    /** Installs a moved cache entry or a clone's copy (the engine checked this node is not the home). */
    void restore(int arrayId, int partition, CacheState state) {
        CacheEntry c = new CacheEntry(nodeId, nodeCount.getAsInt(), arrayId, partition, homes.homeOf(arrayId, partition));
        c.state = state;
        cache.put(CoherenceEngine.key(arrayId, partition), c);
    }

    /** @return a copy working on {@code store} and {@code outbox}, counting nodes with {@code nodeCount} (model checking) */
    CacheSide copy(IntSupplier nodeCount, PartitionStore store, Outbox outbox, EnumSet<Fault> faults) {
        CacheSide c = new CacheSide(nodeId, nodeCount, homes, store, outbox, faults);
        for (Map.Entry<Long, CacheEntry> k : cache.entrySet()) c.cache.put(k.getKey(), k.getValue().copy(nodeCount.getAsInt()));
        return c;
    }

    private void send(CoherenceOp op, int arrayId, int partition, int destination, int requester, byte[] data) {
        outbox.send(new CoherenceMessage(op, arrayId, partition, nodeId, destination, requester, data));
    }
}
