package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.coherence.Access;

/** One array as this node knows it: its id, layout and the node's slot per partition. */
final class ArrayState {
    final int id;
    final ArraySpec spec;
    final ArrayLayout layout;
    final Slot[] slots;

    ArrayState(int id, ArraySpec spec, int nodeCount, int threadsPerNode, int nodeId) {
        this.id = id;
        this.spec = spec;
        this.layout = ArrayLayout.of(spec, nodeCount, threadsPerNode);
        this.slots = new Slot[layout.partitionCount()];
        for (int p = 0; p < slots.length; p++) {
            boolean home = layout.homeOf(p) == nodeId;
            // the home starts with the only copy: zeros, readable and writable
            slots[p] = home ? new Slot(Access.READ_WRITE, new byte[layout.partitionBytes(p)]) : new Slot(Access.NONE, null);
        }
    }
}
