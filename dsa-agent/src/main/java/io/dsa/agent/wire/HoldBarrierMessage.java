package io.dsa.agent.wire;

/**
 * Host to child (node 0): hold the next plain global barrier's release; answered once every worker
 * of the VM waits there (the safe point), or refused when the job ends first or no safe point
 * comes in time.
 */
public record HoldBarrierMessage(long requestId) implements AgentControlMessage {}
