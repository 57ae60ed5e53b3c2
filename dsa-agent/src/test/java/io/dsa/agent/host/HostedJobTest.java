package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a hosted node's life ends: {@link HostedJob#end}. */
@Timeout(10)
class HostedJobTest {
    private static HostedJob job() {
        return new HostedJob(new HostJobMessage(1, "v", 1, 2, 2, "127.0.0.1:1", "P", List.of(), List.of(), new byte[0], 0, 0), null, "00");
    }

    private static HostJobEventMessage outcome(int event) {
        return new HostJobEventMessage(1, 1, event, "", List.of(), new long[0]);
    }

    @Test
    void aStopEndsARunningNodeThatToldNoOutcome() {
        HostedJob j = job();
        j.setState(HostedJob.State.RUNNING);
        assertEquals(HostedJob.State.STOPPED, j.end(HostedJob.State.STOPPED));
        assertEquals(HostedJob.State.STOPPED, j.state);
    }

    // Its launcher heard DONE and left before the host's report recorded it (seen in ClonePromotionSystemTest on CI)
    @Test
    void aStopAfterTheNodeToldItsOutcomeLeavesTheOutcome() {
        HostedJob done = job();
        done.setState(HostedJob.State.RUNNING);
        done.outcome = outcome(HostJobEventMessage.DONE);
        assertEquals(HostedJob.State.DONE, done.end(HostedJob.State.STOPPED));
        assertEquals(HostedJob.State.DONE, done.end(HostedJob.State.DONE), "the report that follows changes nothing");

        HostedJob failed = job();
        failed.setState(HostedJob.State.RUNNING);
        failed.outcome = outcome(HostJobEventMessage.FAILED);
        assertEquals(HostedJob.State.FAILED, failed.end(HostedJob.State.STOPPED));
    }

    @Test
    void anEndedOrMovedNodeKeepsItsState() {
        for (HostedJob.State first : List.of(HostedJob.State.MOVED, HostedJob.State.DONE, HostedJob.State.FAILED, HostedJob.State.STOPPED)) {
            HostedJob j = job();
            j.setState(first);
            for (HostedJob.State asked : List.of(HostedJob.State.DONE, HostedJob.State.FAILED, HostedJob.State.STOPPED)) {
                assertEquals(first, j.end(asked), first + " then " + asked);
            }
        }
    }

    @Test
    void aCloneThatEndsIsStoppedAndItsOutcomeIsTheReportsOwn() {
        HostedJob clone = job();
        clone.setState(HostedJob.State.CLONE);
        assertEquals(HostedJob.State.STOPPED, clone.end(HostedJob.State.STOPPED));
        HostedJob reported = job();
        reported.setState(HostedJob.State.RUNNING);
        reported.outcome = outcome(HostJobEventMessage.FAILED);
        assertEquals(HostedJob.State.FAILED, reported.end(HostedJob.State.FAILED));
    }
}
