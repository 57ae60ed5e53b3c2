package io.dsa.agent.transport;

import static io.dsa.agent.transport.WireFields.readBoolean;
import static io.dsa.agent.transport.WireFields.readBytes;
import static io.dsa.agent.transport.WireFields.readPresentString;
import static io.dsa.agent.transport.WireFields.readSecurity;
import static io.dsa.agent.transport.WireFields.readString;
import static io.dsa.agent.transport.WireFields.writeBytes;
import static io.dsa.agent.transport.WireFields.writeString;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/** The codecs of the handshake's frames and of HEARTBEAT ({@link WireFormat}); encode beside decode. */
final class HandshakeCodecs {
    private HandshakeCodecs() {}

    static final MessageCodec<ChallengeMessage> CHALLENGE = MessageCodec.of((m, out) -> {
        out.writeInt(m.version());
        out.writeByte(m.security().code());
        writeBytes(m.nonce(), out);
    }, body -> new ChallengeMessage(body.readInt(), readSecurity(body), readBytes(body, "nonce")));

    static final MessageCodec<HelloMessage> HELLO = MessageCodec.of((m, out) -> {
        out.writeInt(m.version());
        writeString(m.vmName(), out);
        out.writeInt(m.nodeId());
        out.writeByte(m.security().code());
        writeBytes(m.nonce(), out);
        writeBytes(m.keyShare(), out);
        writeBytes(m.mac(), out);
    }, body -> new HelloMessage(body.readInt(), readString(body, "vmName"), body.readInt(), readSecurity(body),
            readBytes(body, "nonce"), readBytes(body, "keyShare"), readBytes(body, "mac")));

    static final MessageCodec<WelcomeMessage> WELCOME = MessageCodec.of((m, out) -> {
        out.writeInt(m.nodeId());
        writeBytes(m.keyShare(), out);
        writeBytes(m.mac(), out);
    }, body -> new WelcomeMessage(body.readInt(), readBytes(body, "keyShare"), readBytes(body, "mac")));

    static final MessageCodec<RefuseMessage> REFUSE = MessageCodec.of(
            (m, out) -> writeString(m.reason(), out),
            body -> new RefuseMessage(readString(body, "reason")));

    static final MessageCodec<HeartbeatMessage> HEARTBEAT = MessageCodec.of(
            (m, out) -> out.writeInt(m.intervalMs()),
            body -> new HeartbeatMessage(readHeartbeatInterval(body)));

    static final MessageCodec<SharedRingOffer> SHARED_RING_OFFER = MessageCodec.of((m, out) -> {
        writeString(m.path(), out);
        out.writeLong(m.capacity());
        writeBytes(m.token(), out);
    }, body -> new SharedRingOffer(readPresentString(body, "shared ring path"), body.readLong(),
            readBytes(body, "shared ring token")));

    static final MessageCodec<SharedRingAnswer> SHARED_RING_ANSWER = MessageCodec.of((m, out) -> {
        out.writeByte(m.accepted() ? 1 : 0);
        writeString(m.reason(), out);
    }, body -> new SharedRingAnswer(readBoolean(body, "accepted"), readPresentString(body, "reason")));

    private static int readHeartbeatInterval(ByteBuf body) {
        int ms = body.readInt();
        if (ms < HeartbeatMessage.MIN_INTERVAL_MS || ms > HeartbeatMessage.MAX_INTERVAL_MS) {
            throw new CorruptedFrameException("heartbeat interval " + ms + " ms out of range [" + HeartbeatMessage.MIN_INTERVAL_MS
                    + ", " + HeartbeatMessage.MAX_INTERVAL_MS + "]");
        }
        return ms;
    }
}
