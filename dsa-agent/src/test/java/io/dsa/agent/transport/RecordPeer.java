package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test helper: the far end of a connection's record layer, made of the real handlers on embedded
 * channels: {@link #seal} turns messages into the records that end would send, {@link #open}
 * turns the records it receives back into messages.
 */
final class RecordPeer {
    static final int MAX_FRAME_BYTES = 1 << 20;

    private final EmbeddedChannel sealer;
    private final EmbeddedChannel opener;

    RecordPeer(TransportSecurity security, byte[] sendSecret, byte[] receiveSecret) {
        this(RecordProtection.create(security, sendSecret), RecordProtection.create(security, receiveSecret));
    }

    RecordPeer(RecordProtection send, RecordProtection receive) {
        sealer = new EmbeddedChannel(new RecordEncoder(send), new FrameEncoder(MAX_FRAME_BYTES));
        opener = new EmbeddedChannel(new RecordDecoder(receive, MAX_FRAME_BYTES), new FrameDecoder(MAX_FRAME_BYTES, false));
    }

    /** @return the records of {@code messages}, one per message, in one buffer */
    ByteBuf seal(Object... messages) {
        ByteBuf out = Unpooled.buffer();
        for (Object m : messages) {
            out.writeBytes(sealOne(m));
        }
        return out;
    }

    /** @return the record of {@code message} as bytes */
    byte[] sealOne(Object message) {
        assertTrue(sealer.writeOutbound(message));
        ByteBuf record = sealer.readOutbound();
        byte[] bytes = new byte[record.readableBytes()];
        record.readBytes(bytes);
        record.release();
        assertNull(sealer.readOutbound());
        return bytes;
    }

    /** @return the one message in {@code records} (released) */
    Object open(ByteBuf records) {
        opener.writeInbound(records);
        Object m = opener.readInbound();
        assertNotNull(m, "no message opened");
        assertNull(opener.readInbound(), "more than one message");
        assertTrue(opener.isOpen(), "record rejected");
        return m;
    }

    void finish() {
        assertFalse(sealer.finish());
        assertFalse(opener.finish());
    }
}
