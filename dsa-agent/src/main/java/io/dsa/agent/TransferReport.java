package io.dsa.agent;

/**
 * What an agent transfer or cloning did.
 *
 * @param agentId the agent moved, or the clone's id ({@code vm/cloneNode})
 * @param fromMonitor the host it came from, {@code host:port}
 * @param toMonitor the host it runs on now
 * @param pauseNanos from the agent's safe point to its workers running again; for a clone, how
 *        long the VM was held at the safe point while the clone was made and registered
 * @param bytes bytes of state that travelled
 */
public record TransferReport(String agentId, String fromMonitor, String toMonitor, long pauseNanos, long bytes) {
    /** @return a one-line summary for people */
    public String describe(String verb) {
        return String.format("%s %s from %s to %s: pause %.1f ms, %d bytes moved", verb, agentId, fromMonitor, toMonitor,
                pauseNanos / 1e6, bytes);
    }
}
