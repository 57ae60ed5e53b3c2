package io.dsa.agent;

/**
 * What a clone did.
 *
 * @param source the node that was cloned
 * @param cloneNode the clone's new node id ({@code >=} the VM's node count)
 * @param address the clone's address ({@code host:port})
 * @param epoch the epoch of the safe point the copy was taken at (0 when no job ran)
 * @param pauseNanos from the safe point to the barrier's release, in nanoseconds
 * @param bytesMoved size of the encoded clone state
 * @param dataBytes partition bytes within it
 */
public record CloneReport(int source, int cloneNode, String address, long epoch, long pauseNanos, long bytesMoved, long dataBytes) {
    @Override
    public String toString() {
        return String.format("node %d cloned as node %d at %s (epoch %d): pause %.3f ms, %d bytes moved (%d of partition data)",
                source, cloneNode, address, epoch, pauseNanos / 1e6, bytesMoved, dataBytes);
    }
}
