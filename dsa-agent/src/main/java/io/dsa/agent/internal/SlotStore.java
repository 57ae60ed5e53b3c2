package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import io.dsa.coherence.PartitionStore;
import java.util.function.IntFunction;

/**
 * The coherence engine's view of one node's slots ({@link ArrayDirectory}'s engine): access changes,
 * the bytes a send lends, copies that arrive, and overwrites granted without data. On the node's I/O
 * thread, which owns the engine.
 */
final class SlotStore implements PartitionStore {
    private final IntFunction<ArrayState> arrays;
    private final GrantWaits grantWaits;

    /** @param arrays the node's arrays by id; @param grantWaits the futures that wait for grants */
    SlotStore(IntFunction<ArrayState> arrays, GrantWaits grantWaits) {
        this.arrays = arrays;
        this.grantWaits = grantWaits;
    }

    private ArrayState array(int id) { return arrays.apply(id); }

    @Override
    public void setAccess(int arrayId, int partition, Access access) {
        ArrayState a = array(arrayId);
        Slot s = a.slots[partition];
        s.grant(access);
        // a future (no worker) waits for this slot: a home partition never touched here gets its bytes now, as a
        // worker's retried request would give them (a remote read of it leaves the home's slot without bytes)
        if (grantWaits.waitsOn(s)) s.materialize(a.layout.partitionBytes(partition));
        grantWaits.granted(s);
    }

    @Override
    public byte[] snapshot(int arrayId, int partition) {
        // lent, not copied: the engine passes it straight to a send, which encodes it before returning (Peers
        // copies a message it must queue); the local access was lowered first, so no hit writes it meanwhile
        // except a racing writer, which re-checks the stamp and redoes its write through the protocol
        ArrayState a = array(arrayId);
        return a.slots[partition].lend(a.layout.partitionBytes(partition));
    }

    @Override
    public void install(int arrayId, int partition, byte[] data, Access access) {
        ArrayState a = array(arrayId);
        int expected = a.layout.partitionBytes(partition);
        if (data.length != expected) {
            throw new IllegalStateException("partition " + partition + " of array '" + a.spec.name() + "' arrived with "
                    + data.length + " bytes, expected " + expected);
        }
        PushedDiffs.install(a, partition, data, access);
        grantWaits.granted(a.slots[partition]);
    }

    @Override
    public void overwrite(int arrayId, int partition) {
        ArrayState a = array(arrayId);
        Slot s = a.slots[partition];
        Overwrite o = s.takeOverwrite();
        if (o == null || o.state() != Overwrite.REQUESTED) {
            // a claimed overwrite is never taken back, and only a claimed one asks without data
            throw new IllegalStateException("partition " + partition + " of array '" + a.spec.name() + "' was granted without"
                    + " data for an overwrite, but the slot holds " + (o == null ? "no overwrite" : o));
        }
        byte[] data = s.arrayForOverwrite(a.layout.partitionBytes(partition));
        o.writeInto(s, a.spec.elementType());
        PushedDiffs.install(a, partition, data, Access.READ_WRITE);
        grantWaits.granted(s);
    }
}
