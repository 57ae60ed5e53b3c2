package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.ViewMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The router hands each message to its type's one handler; unknown types are dropped and logged once. */
@Timeout(10)
class MessageRouterTest {
    final MessageRouter router = new MessageRouter(3);
    final List<String> handled = new ArrayList<>();

    @Test
    void eachMessageGoesToTheHandlerOfItsTypeWithItsSender() {
        router.on(ReportMessage.class, (from, m) -> handled.add("report from " + from + ": " + m.text()));
        router.on(StatusMessage.class, (from, m) -> handled.add("status from " + from + ": " + m.code()));
        router.route(1, new ReportMessage(1, "hi"));
        router.route(2, new StatusMessage(2, StatusMessage.DONE, ""));
        router.route(0, new ReportMessage(0, "again"));
        assertEquals(List.of("report from 1: hi", "status from 2: 1", "report from 0: again"), handled);
    }

    @Test
    void aSecondHandlerForATypeIsRefused() {
        router.on(ReportMessage.class, (from, m) -> {});
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> router.on(ReportMessage.class, (from, m) -> {}));
        assertEquals("node 3 registered a second handler for ReportMessage", e.getMessage());
    }

    @Test
    void aMessageOfAnUnknownTypeIsDroppedAndOnlyTheFirstOfItsTypeIsLoggedAtWarn() {
        router.on(ReportMessage.class, (from, m) -> handled.add("report"));
        router.route(1, new ViewMessage(2, List.of()));   // no handler: dropped, nothing thrown
        assertEquals(List.of(), handled);
        assertFalse(router.unexpected(1, new ViewMessage(2, List.of())), "the second of its type is at DEBUG");
        assertTrue(router.unexpected(2, new StatusMessage(2, 1, "")), "another type warns once too");
        assertFalse(router.unexpected(2, new StatusMessage(2, 1, "")));
    }
}
