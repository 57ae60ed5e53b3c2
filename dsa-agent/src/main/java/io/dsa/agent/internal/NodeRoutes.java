package io.dsa.agent.internal;

import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.LaneOfferMessage;
import io.dsa.agent.wire.LaneRequestMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.BuddyCopyMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;

/**
 * The node's routing table: which of {@link NodeRuntime}'s pieces handles each inbound message
 * type, and for a type whose messages go to different roles by content (locks, barrier arrivals,
 * status codes), which role takes which. Its one job is that table; the dispatch itself is
 * {@link MessageRouter}'s.
 *
 * <p>Threading: {@link #register} runs once, in the node's constructor, before its transport
 * listens; the handlers it registers run where the router calls them (the I/O thread, or a worker
 * sending to its own node) and never block.
 */
final class NodeRoutes {
    private NodeRoutes() {}

    /** Registers one handler per message type with {@code router}; {@code monitor} is null except on node 0. */
    static void register(NodeRuntime rt, MessageRouter router, PendingCalls calls, NodeTransport transport, MonitorRole monitor) {
        router.on(CoherenceMessage.class, (from, m) -> rt.arrays.onCoherence(m));
        router.on(BarrierReleaseMessage.class, (from, m) -> rt.barriers.onRelease(m));
        router.on(RegisteredMessage.class, (from, m) -> calls.complete(m.requestId(), m));
        router.on(VarResultMessage.class, (from, m) -> calls.complete(m.requestId(), m));
        router.on(VarOpMessage.class, rt.variables::onVarOp);
        router.on(AccumulateMessage.class, rt.accumulator::onAccumulate);
        router.on(AccumulatedMessage.class, (from, m) -> calls.complete(m.requestId(), m));
        router.on(DiffMessage.class, rt.diffs::onDiff);
        router.on(PushMessage.class, rt.scopes.computed::onPush);
        router.on(DiffAppliedMessage.class, (from, m) -> calls.complete(m.requestId(), m));
        router.on(LaneOfferMessage.class, rt.lanes::onOffer);
        if (monitor != null) router.on(LaneRequestMessage.class, rt.lanes::onRequest);
        router.on(DefineMessage.class, (from, m) -> rt.registry.onDefine(m));
        router.on(ViewMessage.class, (from, m) -> rt.membership.onView(m, transport));
        router.on(LockMessage.class, (from, m) -> {
            if (LockClient.isAnswer(m)) calls.complete(m.requestId(), m);
            else if (monitor != null) monitor.onLock(from, m);
            else router.unexpected(from, m);
        });
        router.on(BarrierArriveMessage.class, (from, m) -> {
            if (rt.barriers.handlesArrive(m)) rt.barriers.onArrive(from, m);
            else if (monitor != null) monitor.onArrive(from, m);
            else router.unexpected(from, m);
        });
        router.on(StatusMessage.class, (from, m) -> {
            if (m.code() == StatusMessage.WORKERS_QUERY) rt.workers.onQuery(m);
            else if (m.code() == StatusMessage.WORKERS && monitor != null) rt.workers.onAnswer(m);
            else if (JobLifecycle.isNodeStatus(m)) rt.job.onStatus(m);
            else if (isCheckpointRequest(m) && rt.checkpoints != null) rt.checkpoints.onRequest(m);
            else if (m.code() == StatusMessage.CHECKPOINT_COMMIT && rt.cloneCopies != null) rt.cloneCopies.onCommit(m);
            else if (m.code() == StatusMessage.CHECKPOINTED && rt.checkpoints != null && monitor != null) rt.checkpoints.onAnswer(m);
            else if (monitor != null) monitor.onStatus(from, m);
            else router.unexpected(from, m);
        });
        router.on(BuddyCopyMessage.class, (from, m) -> {
            if (rt.checkpoints != null) rt.checkpoints.onBuddyCopy(m);
            else if (rt.cloneCopies != null) rt.cloneCopies.onCopy(m);
            else router.unexpected(from, m);
        });
        if (monitor != null) {
            router.on(RegisterMessage.class, monitor::onRegister);
            router.on(ReportMessage.class, (from, m) -> monitor.onReport(m));
        }
    }

    private static boolean isCheckpointRequest(StatusMessage m) {
        return m.code() == StatusMessage.CHECKPOINT_QUIESCE || m.code() == StatusMessage.CHECKPOINT_WRITE
                || m.code() == StatusMessage.CHECKPOINT_COMMIT;
    }
}
