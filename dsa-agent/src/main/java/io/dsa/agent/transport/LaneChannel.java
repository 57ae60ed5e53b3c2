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
import java.nio.file.Files;
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
 * <p><b>Shared memory.</b> Once node 0 has bound the lane it may offer a file of two
 * {@link LaneRing}s ({@link #offerRing}): a control frame {@code [int 2][u8 0][u8 RING]} followed
 * by the file's path in UTF-8, the frame's length counting them. From then on node 0 writes every
 * frame into its ring, and so does the dialer from the moment it read the offer; the socket
 * carries only doorbells ({@code [int 2][u8 0][u8 BELL]}) for a reader that sleeps in its
 * selector. Type code 0 is no message's. A frame the dialer wrote to the socket before it read
 * the offer precedes, on the socket, everything it writes later; the reader reads the socket
 * before the ring whenever both hold bytes, and lane messages alternate (a node's next arrival
 * follows the release of its last), so the frames stay in order.
 *
 * <p>Threading: {@link #trySend} may be called by any thread (writes are serialised); {@link #receive},
 * {@link #readHello} and the ring's reader methods by one thread at a time (the node's lane
 * poller). The channel is non-blocking after the hello.
 */
public final class LaneChannel implements AutoCloseable {
    /** Largest frame (type byte and body) a lane carries. */
    public static final int MAX_FRAME_BYTES = 64 * 1024;
    /** Bytes of the token that binds a lane to a connection. */
    public static final int TOKEN_BYTES = 32;
    private static final int HELLO_BYTES = Integer.BYTES + TOKEN_BYTES;
    /** The type code of a control frame: no message has it. */
    private static final int CONTROL = 0;
    /** Control: the writer put bytes in the ring of a reader that sleeps. */
    private static final int BELL = 1;
    /** Control: node 0 offers the lane's shared memory; the frame's body is the path of its file. */
    private static final int RING = 2;

    private final SocketChannel channel;
    private final Object writeLock = new Object();
    /** Encoding buffer, under {@link #writeLock}. */
    private final ByteBuf out = Unpooled.buffer(256, Integer.BYTES + MAX_FRAME_BYTES);
    private final ByteBuffer in = ByteBuffer.allocate(Integer.BYTES + MAX_FRAME_BYTES);
    private final ByteBuf inView = Unpooled.wrappedBuffer(in.array());
    /** Whether this end dialled (a node other than 0): only a dialer takes an offer of shared memory. */
    private final boolean dialer;
    /** The ring frames go into once shared memory is on; written under {@link #writeLock}. */
    private LaneRing outRing;
    /** The ring frames come from once shared memory is on; the poller's. */
    private volatile LaneRing inRing;
    /** Node 0: the file of the lane's rings, removed with the lane. */
    private volatile Path ringFile;
    /** The doorbell's frame, under {@link #writeLock}. */
    private final ByteBuffer bell = control(BELL, null);
    /** Frames sent through the ring (tests and counters). */
    private volatile long ringFrames;
    /** Doorbells rung (tests and counters). */
    private volatile long bells;

    private LaneChannel(SocketChannel channel, boolean dialer) {
        this.channel = channel;
        this.dialer = dialer;
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
            return new LaneChannel(ch, true);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** @return an accepted channel, made non-blocking; its first bytes are a hello ({@link #readHello}) */
    static LaneChannel accepted(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        return new LaneChannel(ch, false);
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
            LaneRing ring = outRing;
            if (ring == null) {
                writeFully(b);
                return true;
            }
            for (int spins = 1; !ring.offer(b); spins++) {
                // the reader is behind by a ring's worth, which alternating barrier messages never are
                if (!channel.isOpen()) throw new IOException("the lane closed while its ring was full");
                if (spins % 64 == 0) Thread.yield();
                else Thread.onSpinWait();
            }
            ringFrames++;
            if (ring.published()) {
                bells++;
                writeFully(bell.rewind());
            }
            return true;
        }
    }

    // Under writeLock: the whole of b on the socket.
    private void writeFully(ByteBuffer b) throws IOException {
        int spins = 0;
        while (b.hasRemaining()) {
            if (channel.write(b) == 0 && ++spins % 64 == 0) Thread.yield(); // the reader is behind: a rare full socket buffer
        }
    }

    private static ByteBuffer control(int kind, byte[] body) {
        int bodyBytes = body == null ? 0 : body.length;
        ByteBuffer b = ByteBuffer.allocate(Integer.BYTES + 2 + bodyBytes);
        b.putInt(2 + bodyBytes).put((byte) CONTROL).put((byte) kind);
        if (body != null) b.put(body);
        return b.flip();
    }

    /**
     * Node 0, once the lane is bound: creates the lane's shared memory as {@code file}, offers it
     * to the dialer, and from now on writes every frame into it and reads the dialer's frames
     * from it as well. The file is removed by the dialer once it mapped it, or with the lane.
     *
     * @throws IOException if the file cannot be created, mapped or offered (the lane goes on over its socket)
     */
    public void offerRing(Path file) throws IOException {
        java.nio.MappedByteBuffer m = LaneRing.create(file);
        ringFile = file;
        byte[] path = file.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (2 + path.length > MAX_FRAME_BYTES) throw new IOException("lane file path of " + path.length + " bytes");
        synchronized (writeLock) {
            writeFully(control(RING, path));   // before any frame that goes into the ring
            inRing = LaneRing.of(m, 1);
            outRing = LaneRing.of(m, 0);
        }
    }

    // The dialer: node 0's offer of shared memory; maps it, removes the file (both ends hold it now), and uses it.
    private void acceptRing(ByteBuf body) throws IOException {
        if (inRing != null) throw new IOException("a second shared memory offer on one lane");
        Path file = Path.of(body.readCharSequence(body.readableBytes(), java.nio.charset.StandardCharsets.UTF_8).toString());
        java.nio.MappedByteBuffer m = LaneRing.map(file);
        Files.deleteIfExists(file);
        inRing = LaneRing.of(m, 0);
        synchronized (writeLock) {
            outRing = LaneRing.of(m, 1);
        }
    }

    /** @return whether the lane's ring holds bytes to {@link #receive}; the poller's */
    public boolean ringReadable() {
        LaneRing r = inRing;
        return r != null && r.readable();
    }

    /** @return whether frames travel in shared memory */
    public boolean hasRing() { return inRing != null; }

    /** @return frames this end sent through shared memory */
    public long ringFrames() { return ringFrames; }

    /** @return doorbells this end rang: frames it put in the ring of a reader that slept */
    public long bells() { return bells; }

    /**
     * The poller, before it blocks in its selector: asks the writer to ring the doorbell.
     *
     * @return false if the ring holds bytes already (then it must not block; the request is withdrawn)
     */
    public boolean sleep() {
        LaneRing r = inRing;
        return r == null || r.sleep();
    }

    /** The poller, awake again: withdraws {@link #sleep}'s request. */
    public void awake() {
        LaneRing r = inRing;
        if (r != null) r.awake();
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
        return receive(sink, true);
    }

    /**
     * As {@link #receive(Consumer)}, but from the ring alone when {@code socketToo} is false: for a
     * poller that saw the ring's bytes, which need no system call. The socket then holds at most
     * doorbells, and frames the peer wrote before its ring was on, which the peer's next frame
     * waits for (lane messages alternate): the poller reads those when its selector sees them.
     *
     * @return the messages handed over (0 if none is whole yet)
     * @throws IOException as {@link #receive(Consumer)}
     */
    public int receive(Consumer<Object> sink, boolean socketToo) throws IOException {
        fill(socketToo);
        int n = 0;
        int start = 0;
        while (in.position() - start >= Integer.BYTES) {
            int length = in.getInt(start);
            if (length < 1 || length > MAX_FRAME_BYTES) throw new IOException("lane frame of " + length + " bytes, valid range [1, " + MAX_FRAME_BYTES + "]");
            if (in.position() - start - Integer.BYTES < length) break;
            int typeCode = in.get(start + Integer.BYTES) & 0xff;
            if (typeCode == CONTROL) {
                control(inView.slice(start + Integer.BYTES + 1, length - 1));
                start += Integer.BYTES + length;
                continue;
            }
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

    // A control frame's kind and body.
    private void control(ByteBuf body) throws IOException {
        int kind = body.isReadable() ? body.readUnsignedByte() : -1;
        if (kind == BELL && !body.isReadable()) return;
        if (kind == RING && body.isReadable() && dialer) {
            acceptRing(body);
            return;
        }
        throw new IOException("lane control frame of kind " + kind + " with " + body.readableBytes() + " bytes: expected a bell"
                + (dialer ? " or a shared memory offer" : ""));
    }

    // The socket's bytes, then the ring's (only when the socket's are all in: its frames come first).
    private void fill() throws IOException {
        fill(true);
    }

    private void fill(boolean socketToo) throws IOException {
        // part of a socket frame waiting: the socket's rest comes before anything in the ring
        if ((socketToo || in.position() > 0) && channel.read(in) < 0) throw new EOFException("the lane's peer closed it");
        LaneRing r = inRing;
        if (r != null && in.hasRemaining()) r.read(in);
    }

    // Drops the first `consumed` bytes of the input buffer.
    private void compact(int consumed) {
        if (consumed == 0) return;
        in.flip();
        in.position(consumed);
        in.compact();
    }

    /** Closes the socket and removes the file of shared memory node 0 offered, if still there; idempotent. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing: nothing left to do
        }
        Path f = ringFile;
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // a file left in a private directory, which goes with the listener
            }
        }
    }
}
