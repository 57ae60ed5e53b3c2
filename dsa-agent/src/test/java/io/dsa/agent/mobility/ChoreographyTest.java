package io.dsa.agent.mobility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The move and clone state machines driven by a scripted port (no agents, no sockets): the exact
 * steps of the commit path, a failure at every state before the commit abandons and releases,
 * nothing from the commit on abandons, and a seeded bug (committing before every node
 * acknowledged) that these checks catch.
 */
@Timeout(10)
class ChoreographyTest {
    private static final List<String> MOVE_PATH =
            List.of("prepare", "hold", "expect", "transfer", "connect", "await", "commit", "release", "resume");
    private static final List<String> CLONE_PATH =
            List.of("prepare", "hold", "transfer", "admit", "connect", "register", "commit", "release");

    private static Choreography<MoveChoreography.State> move(ScriptedPorts.Log log, String failing) {
        return MoveChoreography.create("move of node 2", ScriptedPorts.scripted(MoveChoreography.Port.class, log, failing),
                (state, cause) -> new IllegalStateException(state + ": " + cause.getMessage(), cause));
    }

    private static Choreography<CloneChoreography.State> clone(ScriptedPorts.Log log, String failing) {
        return CloneChoreography.create("clone of node 1", ScriptedPorts.scripted(CloneChoreography.Port.class, log, failing),
                (state, cause) -> new IllegalStateException(state + ": " + cause.getMessage(), cause));
    }

    /** The commit path: every step once, in order, the commit only after every node acknowledged. */
    private static void assertMoveCommitPath(Choreography<MoveChoreography.State> m, ScriptedPorts.Log log) {
        assertEquals(MoveChoreography.State.RESUMED, m.state(), m.trace().toString());
        assertEquals(MOVE_PATH, log.steps(), m.trace().toString());
    }

    @Test
    void aMoveTakesEveryStepOnceInOrderAndEndsResumed() {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<MoveChoreography.State> m = move(log, null);
        assertEquals(MoveChoreography.State.IDLE, m.state());
        m.run();
        assertMoveCommitPath(m, log);
        List<String> states = new ArrayList<>();
        for (String t : m.trace()) states.add(t.substring(0, t.indexOf(':')));
        assertEquals(List.of("IDLE -> PREPARING", "PREPARING -> HOLDING", "HOLDING -> EXPECTING", "EXPECTING -> TRANSFERRING",
                "TRANSFERRING -> CONNECTING", "CONNECTING -> AWAITING", "AWAITING -> COMMITTING", "COMMITTING -> RELEASING",
                "RELEASING -> RESUMING", "RESUMING -> RESUMED"), states);
        assertEquals("move of node 2 already ran: RESUMED", assertThrows(IllegalStateException.class, m::run).getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = MoveChoreography.State.class, names = {"PREPARING", "HOLDING", "EXPECTING", "TRANSFERRING", "CONNECTING", "AWAITING"})
    void aMoveFailingBeforeTheCommitAbandonsEverywhereAndTheSourceServes(MoveChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<MoveChoreography.State> m = move(log, ScriptedPorts.step(failing));
        IllegalStateException e = assertThrows(IllegalStateException.class, m::run);
        assertEquals(failing + ": injected in " + ScriptedPorts.step(failing), e.getMessage());
        assertEquals(MoveChoreography.State.FAILED, m.state(), m.trace().toString());
        List<String> expected = new ArrayList<>(MOVE_PATH.subList(0, MOVE_PATH.indexOf(ScriptedPorts.step(failing)) + 1));
        expected.add("abandon");   // every node drops the held connection, the target closes
        if (failing != MoveChoreography.State.PREPARING) expected.add("release");   // the hold asked for is let go
        assertEquals(expected, log.steps());
        assertFalse(log.steps().contains("commit"), "the source was never retired: it serves the node");
        assertTrue(m.trace().get(m.trace().size() - 1).startsWith("ABANDONING -> FAILED"), m.trace().toString());
    }

    @ParameterizedTest
    @EnumSource(value = MoveChoreography.State.class, names = {"COMMITTING", "RELEASING", "RESUMING"})
    void nothingAfterTheCommitAbandonsAMove(MoveChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<MoveChoreography.State> m = move(log, ScriptedPorts.step(failing));
        assertThrows(IllegalStateException.class, m::run);
        assertEquals(MoveChoreography.State.LOST, m.state(), m.trace().toString());
        assertFalse(log.steps().contains("abandon"), log.steps().toString());
        // the barrier is let go exactly once, even when the commit failed
        assertEquals(1, log.steps().stream().filter("release"::equals).count(), log.steps().toString());
    }

    @Test
    void aFailingAbandonOrReleaseIsAddedToTheMovesFailure() {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        MoveChoreography.Port failingTwice = ScriptedPorts.failingAfter(MoveChoreography.Port.class,
                ScriptedPorts.scripted(MoveChoreography.Port.class, log, "connect"), "abandon");
        Choreography<MoveChoreography.State> m = MoveChoreography.create("move", failingTwice, (state, cause) -> new IllegalStateException(cause));
        IllegalStateException e = assertThrows(IllegalStateException.class, m::run);
        assertEquals("injected in connect", e.getCause().getMessage());
        assertEquals("injected after abandon", e.getCause().getSuppressed()[0].getMessage());
        assertEquals(MoveChoreography.State.FAILED, m.state());
        assertEquals(List.of("prepare", "hold", "expect", "transfer", "connect", "abandon", "release"), log.steps());
    }

    /** The seeded bug: a move that commits without awaiting the acknowledgements; the commit-path check must fail. */
    @Test
    void aSeededCommitBeforeEveryNodeAcknowledgedIsCaught() {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<MoveChoreography.State> m = move(log, null);
        m.skipActionOf(MoveChoreography.State.AWAITING);
        m.run();
        AssertionError caught = assertThrows(AssertionError.class, () -> assertMoveCommitPath(m, log));
        assertTrue(caught.getMessage().contains("await"), caught.getMessage());
    }

    @Test
    void aCloneTakesEveryStepOnceInOrder() {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<CloneChoreography.State> c = clone(log, null);
        c.run();
        assertEquals(CloneChoreography.State.CLONED, c.state(), c.trace().toString());
        assertEquals(CLONE_PATH, log.steps());
    }

    @ParameterizedTest
    @EnumSource(value = CloneChoreography.State.class, names = {"PREPARING", "HOLDING", "TRANSFERRING", "ADMITTING", "CONNECTING", "REGISTERING"})
    void aCloneFailingBeforeTheCommitIsClosedAndTheBarrierReleased(CloneChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<CloneChoreography.State> c = clone(log, ScriptedPorts.step(failing));
        assertThrows(IllegalStateException.class, c::run);
        assertEquals(CloneChoreography.State.FAILED, c.state(), c.trace().toString());
        List<String> expected = new ArrayList<>(CLONE_PATH.subList(0, CLONE_PATH.indexOf(ScriptedPorts.step(failing)) + 1));
        expected.add("abandon");
        if (failing != CloneChoreography.State.PREPARING) expected.add("release");
        assertEquals(expected, log.steps());
    }

    @ParameterizedTest
    @EnumSource(value = CloneChoreography.State.class, names = {"COMMITTING", "RELEASING"})
    void nothingAfterTheCommitAbandonsAClone(CloneChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<CloneChoreography.State> c = clone(log, ScriptedPorts.step(failing));
        assertThrows(IllegalStateException.class, c::run);
        assertEquals(CloneChoreography.State.LOST, c.state(), c.trace().toString());
        assertFalse(log.steps().contains("abandon"), log.steps().toString());
        assertEquals(1, log.steps().stream().filter("release"::equals).count(), log.steps().toString());
    }

    @Test
    void fanoutRunsEveryStepAndReportsTheFirstFailureWithTheOthers() throws Exception {
        List<Integer> done = java.util.Collections.synchronizedList(new ArrayList<>());
        Fanout.all(List.of(1, 2, 3), done::add);
        assertEquals(List.of(1, 2, 3), done.stream().sorted().toList());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Fanout.all(List.of(1, 2, 3), n -> {
            if (n != 2) throw new IllegalStateException("host " + n);
        }));
        assertEquals("host 1", e.getMessage());
        assertEquals("host 3", e.getSuppressed()[0].getMessage());
    }

    /**
     * A move's commit asks node 0 first and the others only once it returned (what the old agent
     * still reports goes to node 0, which must have retired its connection by then); node 0's
     * failure asks no one else. With {@code Fanout.all} in its place, the others start while node 0
     * still commits, and the first check fails.
     */
    @Test
    void theCommitAsksNodeZeroFirstAndTheOthersOnlyAfterIt() throws Exception {
        java.util.concurrent.CountDownLatch othersMayStart = new java.util.concurrent.CountDownLatch(1);
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        Fanout.nodeZeroFirst(List.of(1, 0, 2, 3), n -> {
            if (n == 0) {
                events.add("node 0 begins");
                // the others would start meanwhile, were they asked in parallel with node 0
                othersMayStart.await(500, java.util.concurrent.TimeUnit.MILLISECONDS);
                events.add("node 0 committed");
            } else {
                events.add("node " + n);
                othersMayStart.countDown();
            }
        });
        assertEquals(List.of("node 0 begins", "node 0 committed"), events.subList(0, 2), events.toString());
        assertEquals(List.of("node 1", "node 2", "node 3"), events.subList(2, 5).stream().sorted().toList());

        List<Integer> asked = java.util.Collections.synchronizedList(new ArrayList<>());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Fanout.nodeZeroFirst(List.of(1, 0, 2), n -> {
            asked.add(n);
            if (n == 0) throw new IllegalStateException("node 0 holds no connection from the new agent");
        }));
        assertEquals("node 0 holds no connection from the new agent", e.getMessage());
        assertEquals(List.of(0), asked);

        asked.clear();
        Fanout.nodeZeroFirst(List.of(2, 1), asked::add);   // a list without node 0: all in parallel
        assertEquals(List.of(1, 2), asked.stream().sorted().toList());
    }

    private static final List<String> RESTART_PATH = List.of("stop", "place", "start", "awaitFormed");

    private static Choreography<RestartChoreography.State> restart(ScriptedPorts.Log log, String failing) {
        return RestartChoreography.create("restart 1", ScriptedPorts.scripted(RestartChoreography.Port.class, log, failing),
                (state, cause) -> new IllegalStateException(state + ": " + cause.getMessage(), cause));
    }

    /** A restart (the same machine for node processes and hosts): stop, place, start, await the formed VM, in order. */
    @Test
    void aRestartTakesEveryStepOnceInOrderAndEndsResumed() {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<RestartChoreography.State> r = restart(log, null);
        r.run();
        assertEquals(RestartChoreography.State.RESUMED, r.state(), r.trace().toString());
        assertEquals(RESTART_PATH, log.steps());
    }

    /** Stopping or placing fails (no checkpoint copy survives, say): nothing was started, the restart is given up. */
    @ParameterizedTest
    @EnumSource(value = RestartChoreography.State.class, names = {"STOPPING", "PLACING"})
    void aRestartFailingBeforeItStartsAnythingEndsFailedWithNothingStarted(RestartChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<RestartChoreography.State> r = restart(log, ScriptedPorts.step(failing));
        assertEquals(failing + ": injected in " + ScriptedPorts.step(failing), assertThrows(IllegalStateException.class, r::run).getMessage());
        assertEquals(RestartChoreography.State.FAILED, r.state(), r.trace().toString());
        List<String> expected = new ArrayList<>(RESTART_PATH.subList(0, RESTART_PATH.indexOf(ScriptedPorts.step(failing)) + 1));
        expected.add("abandon");
        assertEquals(expected, log.steps());
    }

    /** From the start on a new VM exists: a failure is that VM's (LOST), never given back as if nothing had started. */
    @ParameterizedTest
    @EnumSource(value = RestartChoreography.State.class, names = {"STARTING", "FORMING"})
    void aRestartFailingOnceItStartedEndsLostWithoutAbandoning(RestartChoreography.State failing) {
        ScriptedPorts.Log log = new ScriptedPorts.Log();
        Choreography<RestartChoreography.State> r = restart(log, ScriptedPorts.step(failing));
        assertThrows(IllegalStateException.class, r::run);
        assertEquals(RestartChoreography.State.LOST, r.state(), r.trace().toString());
        assertFalse(log.steps().contains("abandon"), log.steps().toString());
        assertEquals(RESTART_PATH.subList(0, RESTART_PATH.indexOf(ScriptedPorts.step(failing)) + 1), log.steps());
    }
}
