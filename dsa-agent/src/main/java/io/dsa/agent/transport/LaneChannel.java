package io.dsa.agent.transport;

import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.function.Consumer;

/**
 * One end of a barrier lane: a Unix-domain stream socket between two nodes of one machine that
 * carries global barrier arrivals and releases, written and read by the worker threads themselves
 * instead of the nodes' I/O threads (docs/runtime.md, "Barrier lanes").
 *
 * <p>On the socket: first the dialer's hello, {@code int node} and the 32-byte token node 0 gave
 * it over their authenticated connection; then frames {@code [int length][u8 type][body]}, where
 * {@code length} counts the type byte and the body, and the body is the message's
 * {@link MessageCodec} layout. Only {@link MessageType#BARRIER_ARRIVE} and
 * {@link MessageType#BARRIER_RELEASE} travel here, at most {@link #MAX_FRAME_BYTES}; a larger
 * message goes through the node's connection instead ({@link #trySend} says no).
 *
 * <p>Threading: {@link #trySend} may be called by any thread (writes are serialised); {@link #receive}
 * and {@link #readHello} by one thread at a time (the node's lane poller). The channel is
 * non-blocking after the hello.
 */
public final class LaneChannel implements AutoCloseable {
    /** Largest frame (type byte and body) a lane carries. */
    public static final int MAX_FRAME_BYTES = 64 * 1024;
    /** Bytes of the token that binds a lane to a connection. */
    public static final int TOKEN_BYTES = 32;
    private static final int HELLO_BYTES = Integer.BYTES + TOKEN_BYTES;

    private final SocketChannel channel;
    private final Object writeLock = new Object();
    /** Encoding buffer, under {@link #writeLock}. */
    private final ByteBuf out = Unpooled.buffer(256, Integer.BYTES + MAX_FRAME_BYTES);
    private final ByteBuffer in = ByteBuffer.allocate(Integer.BYTES + MAX_FRAME_BYTES);
    private final ByteBuf inView = Unpooled.wrappedBuffer(in.array());

    private LaneChannel(SocketChannel channel) {
        this.channel = channel;
    }

    /**
     * Connects to the lane listener at {@code path} and says hello as node {@code node} with
     * {@code token}; the channel is non-blocking afterwards.
     *
     * @throws IOException if there is no such listener on this machine, or the hello cannot be written
     */
    public static LaneChannel dial(Path path, int node, byte[] token) throws IOException {
        if (token.length != TOKEN_BYTES) throw new IllegalArgumentException("lane token of " + token.length + " bytes, expected " + TOKEN_BYTES);
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(path));
            ByteBuffer hello = ByteBuffer.allocate(HELLO_BYTES);
            hello.putInt(node).put(token).flip();
            while (hello.hasRemaining()) ch.write(hello);
            ch.configureBlocking(false);
            return new LaneChannel(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** @return an accepted channel, made non-blocking; its first bytes are a hello ({@link #readHello}) */
    static LaneChannel accepted(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        return new LaneChannel(ch);
    }

    /** @return the socket, for a selector */
    public SocketChannel channel() { return channel; }

    /** @return whether {@code message} is a kind a lane may carry (its size is checked when sent) */
    public static boolean carries(Object message) {
        return message instanceof BarrierArriveMessage || message instanceof BarrierReleaseMessage;
    }

    /**
     * Writes {@code message} whole, or nothing.
     *
     * @return false if the lane does not carry it ({@link #carries}) or its frame exceeds {@link #MAX_FRAME_BYTES}
     * @throws IOException if the socket fails (the lane is then dead: close it)
     */
    public boolean trySend(Object message) throws IOException {
        MessageType type = MessageType.of(message);
        if (!carries(message) || type == null) return false;
        synchronized (writeLock) {
            out.clear();
            out.writeInt(0);
            out.writeByte(type.code());
            try {
                MessageCodecs.of(type).write(message, out);
            } catch (IndexOutOfBoundsException e) {
                return false; // beyond the lane's frame: the connection takes it
            }
            int length = out.writerIndex() - Integer.BYTES;
            out.setInt(0, length);
            ByteBuffer b = out.nioBuffer();
            int spins = 0;
            while (b.hasRemaining()) {
                if (channel.write(b) == 0 && ++spins % 64 == 0) Thread.yield(); // the reader is behind: a rare full socket buffer
            }
            return true;
        }
    }

    /**
     * The dialer's hello, once all its bytes arrived.
     *
     * @return {@code [node, token...]} as a node id and the token, or null while incomplete
     * @throws IOException at end of stream or on a socket error
     */
    public Hello readHello() throws IOException {
        fill();
        if (in.position() < HELLO_BYTES) return null;
        int node = in.getInt(0);
        byte[] token = new byte[TOKEN_BYTES];
        in.get(Integer.BYTES, token, 0, TOKEN_BYTES);
        compact(HELLO_BYTES);
        return new Hello(node, token);
    }

    /** A dialer's claim: node {@code node} with {@code token}. */
    public record Hello(int node, byte[] token) {
        /** @return whether the token is {@code expected}, compared in constant time */
        public boolean matches(byte[] expected) { return expected != null && MessageDigest.isEqual(token, expected); }
    }

    /**
     * Reads what the socket holds and hands each whole message to {@code sink}, in order.
     *
     * @return the messages handed over (0 if none is whole yet)
     * @throws EOFException when the peer closed the lane
     * @throws IOException on a socket error or a malformed frame (the lane is then dead: close it)
     */
    public int receive(Consumer<Object> sink) throws IOException {
        fill();
        int n = 0;
        int start = 0;
        while (in.position() - start >= Integer.BYTES) {
            int length = in.getInt(start);
            if (length < 1 || length > MAX_FRAME_BYTES) throw new IOException("lane frame of " + length + " bytes, valid range [1, " + MAX_FRAME_BYTES + "]");
            if (in.position() - start - Integer.BYTES < length) break;
            int typeCode = in.get(start + Integer.BYTES) & 0xff;
            MessageType type = MessageType.fromCode(typeCode);
            if (type != MessageType.BARRIER_ARRIVE && type != MessageType.BARRIER_RELEASE) {
                throw new IOException("lane frame of type " + (type == null ? "code " + typeCode : type) + ": a lane carries only "
                        + MessageType.BARRIER_ARRIVE + " and " + MessageType.BARRIER_RELEASE);
            }
            ByteBuf body = inView.slice(start + Integer.BYTES + 1, length - 1);
            Object m;
            try {
                m = MessageCodecs.of(type).read(body, null);
            } catch (RuntimeException e) {
                throw new IOException("malformed " + type + " frame on a lane: " + e.getMessage(), e);
            }
            if (body.isReadable()) throw new IOException(type + " frame on a lane has " + body.readableBytes() + " bytes after its body");
            start += Integer.BYTES + length;
            sink.accept(m);
            n++;
        }
        compact(start);
        return n;
    }

    private void fill() throws IOException {
        if (channel.read(in) < 0) throw new EOFException("the lane's peer closed it");
    }

    // Drops the first `consumed` bytes of the input buffer.
    private void compact(int consumed) {
        if (consumed == 0) return;
        in.flip();
        in.position(consumed);
        in.compact();
    }

    /** Closes the socket; idempotent. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing: nothing left to do
        }
    }
}
