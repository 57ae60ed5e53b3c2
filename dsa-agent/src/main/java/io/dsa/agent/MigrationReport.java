package io.dsa.agent;

/**
 * What a live migration did.
 *
 * @param node the node that moved
 * @param from its old agent's address ({@code host:port})
 * @param to its new agent's address
 * @param epoch the epoch at which its workers resumed
 * @param pauseNanos from the safe point (every worker of the VM waiting at the held barrier) to
 *        the workers resumed on the new agent, in nanoseconds
 * @param bytesMoved size of the encoded agent state
 * @param dataBytes partition bytes within it
 */
public record MigrationReport(int node, String from, String to, long epoch, long pauseNanos, long bytesMoved, long dataBytes) {
    @Override
    public String toString() {
        return String.format("node %d moved %s -> %s at epoch %d: pause %.3f ms, %d bytes moved (%d of partition data)", node, from,
                to, epoch, pauseNanos / 1e6, bytesMoved, dataBytes);
    }
}
