package io.dsa.agent.transport;

import static io.dsa.agent.transport.WireFields.readBytes;
import static io.dsa.agent.transport.WireFields.writeBytes;

import io.dsa.agent.wire.BuddyCopyMessage;

/** The codec of the checkpoint copy a node sends its buddy on another host (code 28); encode beside decode. */
final class CheckpointCodecs {
    private CheckpointCodecs() {}

    static final MessageCodec<BuddyCopyMessage> BUDDY_COPY = MessageCodec.of((m, out) -> {
        out.writeLong(m.epoch());
        out.writeInt(m.node());
        writeBytes(m.payload(), out);
    }, body -> new BuddyCopyMessage(body.readLong(), body.readInt(), readBytes(body, "payload")));
}
