package io.dsa.agent.wire;

/**
 * The new host's answer to a {@link TransferMessage#REQUEST_TRANSFER} or
 * {@link TransferMessage#REQUEST_CLONE}: what moved or was cloned, as explicit fields (the
 * receiver checks them, {@code RemoteAgentMonitor.report}). A refusal comes as a
 * {@link HostReplyMessage}.
 *
 * @param requestId the request's id
 * @param agentId the agent moved, or the clone ({@code vm/node})
 * @param fromMonitor the host it came from, {@code host:port}
 * @param toMonitor the host it runs on now, {@code host:port}
 * @param pauseNanos how long the VM was held, in nanoseconds
 * @param bytes the bytes of the agent's state
 */
public record TransferReportMessage(long requestId, String agentId, String fromMonitor, String toMonitor, long pauseNanos,
                                    long bytes) implements WireMessage {}
