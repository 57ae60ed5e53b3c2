package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import io.dsa.coherence.PartitionStore;

/** Partition stores for engine tests whose messages are scripted and whose data does not matter. */
final class ScriptedStores {
    private ScriptedStores() {}

    /** @return a store that keeps nothing: accesses and installs are ignored, every snapshot is 8 zero bytes */
    static PartitionStore discarding() {
        return new PartitionStore() {
            @Override public void setAccess(int arrayId, int partition, Access access) { }
            @Override public byte[] snapshot(int arrayId, int partition) { return new byte[8]; }
            @Override public void install(int arrayId, int partition, byte[] data, Access access) { }
            @Override public void overwrite(int arrayId, int partition) { }
        };
    }
}
