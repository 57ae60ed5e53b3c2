package io.dsa.agent.transport;

import io.netty.channel.embedded.EmbeddedChannel;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Test helper: what an embedded channel decoded, and why it closed. */
final class ChannelChecks {
    private ChannelChecks() {}

    /** @return every inbound message waiting in {@code ch}, read out */
    static List<Object> drain(EmbeddedChannel ch) {
        List<Object> out = new ArrayList<>();
        for (Object m; (m = ch.readInbound()) != null; ) out.add(m);
        return out;
    }

    /** @return the reason the transport gave for closing {@code ch} (fails if it gave none) */
    static String closeReason(EmbeddedChannel ch) {
        Throwable t = ch.attr(FrameDecoder.CLOSE_REASON).get();
        assertNotNull(t, "no close reason");
        return t.getMessage();
    }
}
