package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The encode and decode of one message type's frame body, side by side: {@link #write} lays the
 * message out as {@link WireFormat} describes, {@link #read} takes exactly those bytes back.
 * {@link MessageCodecs} maps every {@link MessageType} to its codec. Implementations are
 * stateless singletons (non-capturing lambdas), so the lookup and the call allocate nothing
 * beyond the decoded values.
 *
 * @param <M> the message record of the type
 */
interface MessageCodec<M> {
    /** Writes {@code message}'s body at {@code out}'s writer index. */
    void write(M message, ByteBuf out);

    /**
     * Reads a body; a COHERENCE codec decodes partition bytes into the array {@code buffers} names.
     *
     * @throws CorruptedFrameException when the body is malformed (naming what and where)
     * @throws IndexOutOfBoundsException when the body is truncated
     */
    M read(ByteBuf body, PartitionBuffers buffers);

    /** @return a codec of a body that needs no partition buffers */
    static <M> MessageCodec<M> of(BiConsumer<M, ByteBuf> write, Function<ByteBuf, M> read) {
        return new MessageCodec<>() {
            @Override
            public void write(M message, ByteBuf out) { write.accept(message, out); }

            @Override
            public M read(ByteBuf body, PartitionBuffers buffers) { return read.apply(body); }
        };
    }
}
