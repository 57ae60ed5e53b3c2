package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.mobility.Fanout;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.HostJobMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * What the new host's side of a move ({@link HostMove}) and of a clone ({@link HostClone}) share:
 * the agent asked for, where the VM's nodes run, and sending one typed step to a node's host or
 * to several at once.
 */
abstract class HostSteps {
    final TransferTarget target;
    final AgentHost host;
    final String agentId;
    final String fromMonitor;
    final List<String> vmHosts;
    final TransferTarget.AgentRef ref;
    /** The host of each node of the VM (clones included), once located. */
    Map<Integer, String> hostOf = Map.of();

    HostSteps(TransferTarget target, AgentHost host, String agentId, String fromMonitor, List<String> vmHosts) {
        this.target = target;
        this.host = host;
        this.agentId = agentId;
        this.fromMonitor = fromMonitor;
        this.vmHosts = vmHosts;
        this.ref = TransferTarget.AgentRef.parse(agentId);
    }

    /** Finds the host of every node of the VM of {@code m}; checks that the source serves the agent. */
    final void locate(HostJobMessage m) {
        hostOf = target.locate(ref.vm(), m.nodes(), vmHosts, m, fromMonitor);
        if (!fromMonitor.equals(hostOf.get(ref.node()))) {
            throw new DsaException("node " + ref.node() + " of vm '" + ref.vm() + "' runs on " + hostOf.get(ref.node()) + ", not "
                    + fromMonitor);
        }
    }

    /** Sends a step to the host of node {@code node} and waits for its answer. */
    final void ask(int node, LongFunction<AgentControlMessage> step) {
        target.ask(hostOf.get(node), ref.vm(), node, step);
    }

    /** Sends a step to the hosts of {@code nodes} at once and waits for every answer. */
    final void askAll(List<Integer> nodes, LongFunction<AgentControlMessage> step) throws Exception {
        Fanout.all(nodes, j -> ask(j, step));
    }

    /** Asks node 0 first, then the other {@code nodes} in parallel: a move's commit ({@link Fanout#nodeZeroFirst}). */
    final void askNodeZeroFirst(List<Integer> nodes, LongFunction<AgentControlMessage> step) throws Exception {
        Fanout.nodeZeroFirst(nodes, j -> ask(j, step));
    }

    /** @return the node ids {@code [0, count)} without {@code except} (-1 for none) */
    static List<Integer> nodes(int count, int except) {
        List<Integer> ids = new ArrayList<>();
        for (int j = 0; j < count; j++) if (j != except) ids.add(j);
        return ids;
    }

    /** @return a refusal before anything was asked, as it is: the checks' own words */
    static RuntimeException asIs(Throwable cause) {
        return cause instanceof RuntimeException r ? r : new DsaException(cause.toString(), cause);
    }
}
