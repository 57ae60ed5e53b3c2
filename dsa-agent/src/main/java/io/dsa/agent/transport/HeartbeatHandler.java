package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The failure detector of one authenticated connection: a peer that sends nothing at all for
 * {@link TransportConfig#failureTimeoutMs()} is taken for lost, whether it died, hangs, was
 * stopped (SIGSTOP) or the network between the two drops packets without a reset; the connection
 * is closed with a reason that names the peer, and the user's {@code onDisconnected} sees it as
 * for any other loss. So that a healthy but idle peer is never taken for lost, each end sends a
 * {@link HeartbeatMessage} right after the handshake and then whenever it has written nothing for
 * the heartbeat interval: a third of its own timeout, or the shorter interval the peer asked for in
 * its heartbeats (two ends with different timeouts, a launcher's and a host's, then both hold).
 * The {@link ConnectionHandler} hands the peer's heartbeats here ({@link #onPeerHeartbeat}).
 *
 * <p>It sits at the socket end of the pipeline ({@link Transport#HEARTBEAT_HANDLER}), so it sees
 * every read of the socket (any bytes count, even part of a large frame) and every frame written.
 * The cost on the data path is a clock read per socket read and a field store per write: no
 * allocation, no listener. Two timers per connection: the read deadline, moved on as reads come,
 * and the heartbeat tick, at half the interval. Runs on the channel's event loop only. The
 * decisions (when the peer is lost, when a heartbeat is owed) are {@link SilenceDetector}'s, which
 * the in-memory test network drives too.
 */
final class HeartbeatHandler extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatHandler.class);

    private final NettyConnection connection;
    private final long failureTimeoutMs;
    /** The event loop's clock (a test's embedded channel advances its own). */
    private Ticker ticker = Ticker.systemTicker();
    /** The decisions: made when the handler is added, on the event loop's clock. */
    private SilenceDetector detector;
    private ChannelHandlerContext ctx;
    /** What this end sends: the interval it wants from the peer. */
    private final HeartbeatMessage heartbeat;
    private ScheduledFuture<?> readDeadline;
    private ScheduledFuture<?> tick;

    HeartbeatHandler(NettyConnection connection, long failureTimeoutMs) {
        this.connection = connection;
        this.failureTimeoutMs = failureTimeoutMs;
        this.heartbeat = new HeartbeatMessage((int) heartbeatIntervalMs(failureTimeoutMs));
    }

    /** @return how long a connection may be idle for writes before a heartbeat goes out: a third of the timeout */
    static long heartbeatIntervalMs(long failureTimeoutMs) { return SilenceDetector.heartbeatIntervalMs(failureTimeoutMs); }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // added on the event loop, right after the handshake: the channel is active
        if (ctx.executor() instanceof AbstractScheduledEventExecutor loop) ticker = loop.ticker();
        this.ctx = ctx;
        detector = new SilenceDetector(failureTimeoutMs, ticker.nanoTime());
        readDeadline = ctx.executor().schedule(this::checkSilence, detector.nanosLeft(ticker.nanoTime()), TimeUnit.NANOSECONDS);
        scheduleTicks();
        // the first frame after the handshake: the peer learns at once which interval this end needs
        ctx.executor().execute(this::sendHeartbeat);
    }

    // Ticks at half the interval: a tick sends when nothing went out since the one before, so frames are at most an interval apart.
    private void scheduleTicks() {
        if (tick != null) tick.cancel(false);
        long periodMs = detector.tickPeriodMs();
        tick = ctx.executor().scheduleAtFixedRate(this::heartbeatIfIdle, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** The peer's heartbeat (its bytes already moved the read deadline): adopts its interval if shorter. On the event loop. */
    void onPeerHeartbeat(HeartbeatMessage peer) {
        if (ctx != null && ctx.channel().isActive() && detector.onPeerHeartbeat(peer.intervalMs())) scheduleTicks();
    }

    /** @return the interval this end sends heartbeats at now, in milliseconds */
    long intervalMs() { return detector.intervalMs(); }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) { stop(); }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    private void stop() {
        if (readDeadline != null) readDeadline.cancel(false);
        if (tick != null) tick.cancel(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (detector != null) detector.onRead(ticker.nanoTime());
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (detector != null) detector.onWrite();
        ctx.write(msg, promise);
    }

    private void heartbeatIfIdle() {
        if (detector.heartbeatDue()) sendHeartbeat();   // which counts as written, for the next tick
    }

    private void sendHeartbeat() {
        if (!ctx.channel().isActive()) return;
        // from the tail, so the heartbeat is framed and sealed like every other message
        ctx.channel().writeAndFlush(heartbeat).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    private void checkSilence() {
        if (!ctx.channel().isActive()) return;
        long leftNs = detector.nanosLeft(ticker.nanoTime());
        if (leftNs > 0) {
            readDeadline = ctx.executor().schedule(this::checkSilence, leftNs, TimeUnit.NANOSECONDS);
            return;
        }
        DsaException reason = new DsaException(detector.silence(connection.peerNodeId(), connection.remoteAddress()));
        LOG.warn("closing {}: {}", connection, reason.getMessage());
        ctx.channel().attr(FrameDecoder.CLOSE_REASON).setIfAbsent(reason);
        ctx.close();
    }
}
