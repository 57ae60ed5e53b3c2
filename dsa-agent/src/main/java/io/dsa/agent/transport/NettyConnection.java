package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.channel.Channel;
import io.netty.handler.codec.EncoderException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Connection} over an authenticated Netty channel. Thread-safe. A send encodes the
 * message on the caller's thread (into chunk frames if it is large) and hands it to the channel's
 * {@link OutboundScheduler}, which writes it on the event loop.
 *
 * <p>No message is dropped silently: a message that cannot be encoded (a frame over the limit
 * that cannot be chunked, an encoder error) fails {@link #send} with a {@link DsaException}
 * before anything is queued; a record that cannot be sealed closes the connection with its
 * reason (the record encoder), which both ends see as {@code onDisconnected}. Only writes to a
 * connection already closed are dropped: its close has been or will be reported.
 *
 * <p>To a peer on the same machine, a connection that has sent {@link SharedRing#offerAfter} bytes
 * of large bodies (partitions, diffs, pushes) on the socket offers a {@link SharedRing} (made on a
 * thread of its own); once the peer has accepted it, large bodies go through the ring while it has
 * room (docs/runtime.md, "Bulk bytes through shared memory").
 */
final class NettyConnection implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(NettyConnection.class);

    private final Channel channel;
    private final int peerNodeId;
    private final String remoteAddress;
    private final FrameEncoder encoder;
    private final OutboundScheduler scheduler;
    /** Data bytes of the ring this side offers; 0: none. */
    private final long sharedRingBytes;
    /** Whether this side has offered (or decided not to offer) its ring. */
    private final AtomicBoolean ringConsidered = new AtomicBoolean();
    /** Bytes of large bodies sent on the socket before the ring was considered. */
    private final AtomicLong bulkBytes = new AtomicLong();
    /** The ring the peer accepted: large bodies go into it. */
    private volatile SharedRing.Writer ring;
    /** The ring offered and not answered yet; on the event loop only. */
    private SharedRing.Writer offered;
    /** Completes once this side knows whether large bodies go through a ring: true if the peer accepted one. */
    private final CompletableFuture<Boolean> ringDecided = new CompletableFuture<>();

    NettyConnection(Channel channel, int peerNodeId, String remoteAddress, FrameEncoder encoder, OutboundScheduler scheduler) {
        this(channel, peerNodeId, remoteAddress, encoder, scheduler, 0);
    }

    NettyConnection(Channel channel, int peerNodeId, String remoteAddress, FrameEncoder encoder, OutboundScheduler scheduler,
                    long sharedRingBytes) {
        this.channel = channel;
        this.peerNodeId = peerNodeId;
        this.remoteAddress = remoteAddress;
        this.encoder = encoder;
        this.scheduler = scheduler;
        this.sharedRingBytes = sharedRingBytes;
    }

    @Override
    public int peerNodeId() { return peerNodeId; }

    @Override
    public void send(Object message) {
        MessageType type = MessageType.of(message);
        if (type == null || type.handshake()) {
            throw new IllegalArgumentException("cannot send "
                    + (message == null ? "null" : message.getClass().getName())
                    + ": expected a WireMessage record or a CoherenceMessage");
        }
        // Encoded now, on the caller's thread: a coherence message's partition bytes may be the
        // sender's own array, lent until this returns, and a message that cannot be sent fails its sender.
        SharedRing.Writer shared = ring;
        if (shared == null && sharedRingBytes > 0 && !ringConsidered.get() && FrameEncoder.wantsRing(type, message)
                && bulkBytes.addAndGet(WireFormat.sizeHint(type, message)) >= SharedRing.offerAfter(sharedRingBytes)
                && ringConsidered.compareAndSet(false, true)) {
            // made on a thread of its own: writing out the file takes milliseconds the event loop must not wait
            Thread maker = new Thread(this::offerRing, "dsa-shared-ring");
            maker.setDaemon(true);
            maker.start();
        }
        OutboundMessage encoded;
        try {
            encoded = encoder.encode(channel.alloc(), message, shared);
        } catch (RuntimeException e) {
            throw new DsaException("cannot send " + type + " to node " + peerNodeId + " at " + remoteAddress + ": "
                    + (e instanceof EncoderException && e.getMessage() != null ? e.getMessage() : e.toString()), e);
        }
        scheduler.send(encoded);
    }

    // On a thread of its own: creates this side's ring, if the peer runs on this machine, then offers it from the event loop.
    private void offerRing() {
        if (!channel.isActive() || !onThisMachine(channel.remoteAddress())) {
            ringDecided.complete(false);
            return;
        }
        SharedRing.Writer w;
        try {
            w = SharedRing.Writer.create(sharedRingBytes);
        } catch (IOException | RuntimeException e) {
            LOG.debug("{}: no shared ring ({}); large bodies stay on the socket", this, e.toString());
            ringDecided.complete(false);
            return;
        }
        try {
            channel.eventLoop().execute(() -> offer(w));
        } catch (RuntimeException e) {   // the event loop is shutting down
            w.close();
            ringDecided.complete(false);
        }
    }

    // On the event loop: sends the offer of ring w, unless the connection closed meanwhile.
    private void offer(SharedRing.Writer w) {
        if (!channel.isActive()) {
            w.close();
            ringDecided.complete(false);
            return;
        }
        offered = w;
        try {
            send(new SharedRingOffer(w.file().toString(), w.capacity(), w.token()));
        } catch (RuntimeException e) {
            offered = null;
            w.close();
            ringDecided.complete(false);
        }
    }

    /** The peer answered this side's offer; on the event loop. */
    void onRingAnswer(SharedRingAnswer answer) {
        SharedRing.Writer w = offered;
        offered = null;
        if (w == null) {
            LOG.warn("{}: a shared ring answer without an offer, ignored", this);
            return;
        }
        if (answer.accepted()) {
            ring = w;
            LOG.debug("{}: large bodies go through a shared ring of {} bytes", this, w.capacity());
        } else {
            w.close();
            LOG.debug("{}: the peer refused the shared ring: {}", this, answer.reason());
        }
        ringDecided.complete(answer.accepted());
    }

    /** The connection closed: this side's ring files go; on the event loop. */
    void closed() {
        SharedRing.Writer w = ring;
        ring = null;
        if (w != null) w.close();
        if (offered != null) {
            offered.close();
            offered = null;
        }
        ringDecided.complete(false);
    }

    /** @return whether large bodies go through a shared ring now */
    boolean sharesRing() { return ring != null; }

    /** @return completes once this side knows whether large bodies go through a ring (true: the peer accepted one); for tests */
    CompletableFuture<Boolean> ringDecided() { return ringDecided; }

    /** @return whether {@code address} is one of this machine's: loopback, or an address of one of its interfaces */
    static boolean onThisMachine(SocketAddress address) {
        if (!(address instanceof InetSocketAddress a) || a.getAddress() == null) return false;
        InetAddress ip = a.getAddress();
        if (ip.isLoopbackAddress()) return true;
        try {
            return NetworkInterface.getByInetAddress(ip) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    @Override
    public void executeOnIoThread(Runnable task) { channel.eventLoop().execute(task); }

    @Override
    public boolean isOpen() { return channel.isActive(); }

    @Override
    public void close() { channel.close(); }

    @Override
    public String remoteAddress() { return remoteAddress; }

    /** @return the channel, for tests of this package */
    Channel channel() { return channel; }

    /** @return the scheduler, for tests of this package */
    OutboundScheduler scheduler() { return scheduler; }

    @Override
    public String toString() { return "Connection[node " + peerNodeId + " at " + remoteAddress + "]"; }
}
