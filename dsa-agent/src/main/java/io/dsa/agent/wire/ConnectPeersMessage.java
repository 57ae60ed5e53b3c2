package io.dsa.agent.wire;

/** Host to child: the restored agent dials every node of its VM; answered once all connections stand. */
public record ConnectPeersMessage(long requestId) implements AgentControlMessage {}
