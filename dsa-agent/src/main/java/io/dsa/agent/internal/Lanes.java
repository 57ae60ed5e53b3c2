package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.LaneChannel;
import io.dsa.agent.transport.LaneListener;
import io.dsa.agent.transport.Spins;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.LaneOfferMessage;
import io.dsa.agent.wire.LaneRequestMessage;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Iterator;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Barrier lanes (docs/runtime.md, "Barrier lanes"): the global barrier's arrivals and releases
 * between node 0 and the nodes on its machine travel over Unix-domain sockets that the waiting
 * workers write and read themselves, so a barrier costs no hand-off to an I/O thread: a worker's
 * arrival is one system call, and the waiting worker at the other end is woken by the kernel (or
 * sees the bytes while it spins).
 *
 * <p>Set-up, lazily at a node's first global barriers: the node asks node 0 over their
 * authenticated connection ({@link LaneRequestMessage}); node 0 answers with its listener's path
 * and a fresh token ({@link LaneOfferMessage}); at its next barrier the node dials and says hello
 * with the token, and node 0 binds the lane to that connection. A node on another machine cannot
 * reach the path and keeps the connection; so do all nodes when the listener cannot be opened.
 * A lane is used only while the connection it was bound to is still the node's connection (a
 * node that moved gets a new one, and a new lane later); a lane that fails is dropped, and its
 * traffic goes back to the connection. Messages over a lane are dispatched exactly like those of
 * the connection ({@code dispatch}).
 *
 * <p>Threading: one worker at a time polls the lanes ({@link #awaitGlobal}, under
 * {@link #pollLock}); any thread may send ({@link #trySend}); the I/O thread handles requests and
 * offers.
 */
final class Lanes implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Lanes.class);
    private static final int CHECK_EVERY = 64;
    /** The least spin of the VM's wait strategy ({@link Waiting#laneSpinNs}) for which node 0 offers a lane shared memory. */
    static final long RING_SPIN_NS = 10_000;
    /** Spin turns per look at the sockets while some lane has a ring (accepts, hellos, doorbells, lanes without one). */
    private static final int SELECT_EVERY = 16;
    /** What {@link #readRings} found: frames read, rings without bytes, no ring at all. */
    private static final int READ = 0;
    private static final int EMPTY = 1;
    private static final int NO_RING = 2;

    private final int nodeId;
    private final Peers peers;
    private final BiConsumer<Integer, Object> dispatch;
    private final JobLifecycle job;
    /** The node's I/O thread, which the poller drives while it spins under SPIN ({@link Waiting#waitersDriveIo}). */
    private final IoThread io;
    /** How long the poller spins before it blocks in the selector: Waiting's bound for the VM's strategy. */
    private final java.util.function.LongSupplier spinNs;
    private final boolean enabled;
    private final SecureRandom random = new SecureRandom();
    private final ReentrantLock pollLock = new ReentrantLock();
    /** The thread blocked in {@link #selector}, or null. */
    private volatile Thread selecting;
    /** Lane messages sent and received by this node (tests and counters). */
    final LongAdder sent = new LongAdder();
    final LongAdder received = new LongAdder();

    /** Node 0's listener; null elsewhere, or if lanes are off or could not be opened. */
    private final LaneListener listener;
    /** Opened by the first poller; registered channels belong to it. */
    private volatile Selector selector;

    // By peer node id (node 0: every other node; elsewhere: index 0 only). Under `this`.
    private final LaneChannel[] lanes;
    /** A copy of {@link #lanes} for the poller's spin, which reads the lanes' rings without a lock; set under `this`. */
    private volatile LaneChannel[] polled;
    private final Connection[] laneConnections;
    // Node 0: the token each node was offered and the connection it was offered on. Under `this`.
    private final byte[][] tokens;
    private final Connection[] tokenConnections;
    // Elsewhere: node 0's offer, the connection it came on, and the connection a request went on. Under `this`.
    private LaneOfferMessage offer;
    private Connection offerConnection;
    private Connection requestedOn;
    private boolean closed;

    /**
     * @param enabled whether this VM uses lanes ({@link io.dsa.agent.DsaConfig#barrierLanes()})
     * @param capacity node ids this node accepts
     * @param io the node's I/O thread
     */
    Lanes(boolean enabled, int nodeId, int nodes, int capacity, Peers peers, BiConsumer<Integer, Object> dispatch, JobLifecycle job,
          java.util.function.LongSupplier spinNs, IoThread io) {
        this.io = io;
        this.nodeId = nodeId;
        this.peers = peers;
        this.dispatch = dispatch;
        this.job = job;
        this.spinNs = spinNs;
        this.lanes = new LaneChannel[capacity];
        this.polled = new LaneChannel[capacity];
        this.laneConnections = new Connection[capacity];
        this.tokens = new byte[capacity][];
        this.tokenConnections = new Connection[capacity];
        LaneListener l = null;
        if (enabled && nodeId == 0 && nodes > 1) {
            try {
                l = LaneListener.open();
            } catch (IOException | RuntimeException e) {
                LOG.info("node 0 runs without barrier lanes: {}", e.toString());
            }
        }
        this.listener = l;
        this.enabled = enabled && nodes > 1;
    }

    /** @return whether this node uses lanes where it can (the VM's config, the transport, more than one node) */
    boolean enabled() { return enabled; }

    /** @return whether {@code message} is a global barrier arrival or release (what lanes carry) */
    static boolean global(Object message) {
        return message instanceof BarrierArriveMessage a && a.barrierId() == MonitorRole.GLOBAL_BARRIER
                || message instanceof BarrierReleaseMessage r && r.barrierId() == MonitorRole.GLOBAL_BARRIER;
    }

    /**
     * Sends {@code message} to {@code node} over its lane, if it is a global barrier message, the
     * node has a lane bound to its current connection, and the message fits a lane's frame.
     *
     * @return whether it was sent (false: send it over the connection)
     */
    boolean trySend(int node, Object message) {
        if (!enabled || !global(message) || node >= lanes.length) return false;
        LaneChannel lane;
        Connection bound;
        synchronized (this) {
            lane = lanes[node];
            bound = laneConnections[node];
        }
        if (lane == null) return false;
        if (!peers.holds(node, bound)) {
            drop(node, lane, "node " + node + " has a new connection");
            return false;
        }
        try {
            if (!lane.trySend(message)) return false;
        } catch (IOException e) {
            drop(node, lane, e.toString());
            return false;
        }
        sent.increment();
        return true;
    }

    /** Node 0, on the I/O thread: node {@code from} asks for a lane. */
    void onRequest(int from, LaneRequestMessage m) {
        if (listener == null || from <= 0 || from >= tokens.length || m.node() != from) return;
        Connection c = peers.connection(from);
        if (c == null) return;
        byte[] token = new byte[LaneChannel.TOKEN_BYTES];
        random.nextBytes(token);
        synchronized (this) {
            if (closed) return;
            tokens[from] = token;
            tokenConnections[from] = c;
        }
        peers.send(from, new LaneOfferMessage(listener.path().toString(), token.clone()));
    }

    /** Not node 0, on the I/O thread: node 0's offer; the next poller dials. */
    void onOffer(int from, LaneOfferMessage m) {
        if (from != 0 || nodeId == 0 || !enabled || m.token().length != LaneChannel.TOKEN_BYTES) return;
        Connection c = peers.connection(0);
        synchronized (this) {
            offer = m;
            offerConnection = c;
        }
    }

    /**
     * Waits until {@code p}'s version passes {@code gen}, polling this node's lanes meanwhile and
     * dispatching what they carry, if this node has lanes and no other worker polls them.
     *
     * @return false if the caller must wait the ordinary way (no lanes, or another worker polls)
     */
    boolean awaitGlobal(WaitPoint p, long gen) {
        if (!enabled || !pollLock.tryLock()) return false;
        try {
            if (!prepare()) return false;
            poll(p, gen);
            return true;
        } catch (IOException e) {
            LOG.info("node {} stops polling barrier lanes: {}", nodeId, e.toString());
            return false;
        } finally {
            closeSelectorIfClosed();
            pollLock.unlock();
        }
    }

    // Under pollLock: opens the selector, and elsewhere than node 0 asks for, or dials, the lane. @return whether there is a lane to poll
    private boolean prepare() throws IOException {
        if (selector == null) {
            synchronized (this) {
                if (closed) return false;
            }
            selector = Selector.open();
            if (listener != null) listener.channel().register(selector, SelectionKey.OP_ACCEPT);
        }
        if (nodeId == 0) return listener != null;
        Connection now = peers.connection(0);
        if (now == null) return false;
        LaneOfferMessage o = null;
        synchronized (this) {
            if (lanes[0] != null && laneConnections[0] == now) return true;
            if (offer != null && offerConnection == now) {
                o = offer;
                offer = null;
            } else if (requestedOn == now) {
                return false; // asked on this connection already: no offer (yet), or the lane failed
            } else {
                requestedOn = now;
            }
        }
        if (o == null) {
            peers.send(0, new LaneRequestMessage(nodeId));
            return false;
        }
        LaneChannel lane;
        try {
            lane = LaneChannel.dial(Path.of(o.path()), nodeId, o.token());
        } catch (IOException | RuntimeException e) {
            LOG.debug("node {} has no barrier lane to node 0 ({}): its barriers use the connection", nodeId, e.toString());
            return false;
        }
        synchronized (this) {
            if (closed) {
                lane.close();
                return false;
            }
            lanes[0] = lane;
            laneConnections[0] = now;
            polled = lanes.clone();
        }
        lane.channel().register(selector, SelectionKey.OP_READ, 0);
        return true;
    }

    // Under pollLock: spins (by the VM's strategy), then blocks in the selector, until p passes gen.
    private void poll(WaitPoint p, long gen) throws IOException {
        long spin = spinNs.getAsLong();
        if (spin != Long.MAX_VALUE) {
            poll(p, gen, spin, null);
            return;
        }
        io.waitBegins();   // SPIN: the poller runs the node's I/O too (Waiting#waitersDriveIo)
        try {
            poll(p, gen, spin, io);
        } finally {
            io.waitEnds();
        }
    }

    // @param driven the I/O thread the poller drives at each spin turn, or null
    private void poll(WaitPoint p, long gen, long spin, IoThread driven) throws IOException {
        Thread me = Thread.currentThread();
        long spinUntil = spin == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + spin;
        int turns = 0;
        while (p.version() <= gen) {
            // the rings are memory; the sockets a system call each look, so with rings they are looked at less often
            int rings = readRings();
            if (rings == READ) continue;
            ++turns;
            if ((rings == NO_RING || turns % SELECT_EVERY == 0) && selector.selectNow() > 0) {
                handleSelected();
                continue;
            }
            if (turns % CHECK_EVERY == 0) job.checkFailed();
            if (spinUntil == Long.MAX_VALUE || System.nanoTime() < spinUntil) {
                if (driven == null || !driven.waitTurn() || Spins.yieldsAt(spin, turns)) Spins.turn(spin, turns);
                continue;
            }
            if (!sleepOnRings()) continue; // a ring got bytes meanwhile
            selecting = me;
            try {
                if (p.version() > gen) break;
                selector.select(NodeRuntime.POLL_MS);
            } finally {
                selecting = null;
                awakeOnRings();
            }
            handleSelected();
            job.checkFailed();
        }
    }

    // Under pollLock: reads every lane whose ring holds bytes, in one pass over the lanes.
    // @return READ if any did, EMPTY if some lane has a ring but none held bytes, NO_RING if no lane has one
    private int readRings() {
        int result = NO_RING;
        LaneChannel[] all = polled;
        for (int node = 0; node < all.length; node++) {
            LaneChannel lane = all[node];
            if (lane == null || !lane.hasRing()) continue;
            if (lane.ringReadable()) {
                read(lane.channel().keyFor(selector), node, false);
                result = READ;
            } else if (result == NO_RING) {
                result = EMPTY;
            }
        }
        return result;
    }

    // Under pollLock, before blocking: every ring's writer is to ring the doorbell. @return false if a ring has bytes already
    private boolean sleepOnRings() {
        LaneChannel[] all = polled;
        for (int i = 0; i < all.length; i++) {
            if (all[i] != null && !all[i].sleep()) {
                for (int j = 0; j < i; j++) if (all[j] != null) all[j].awake();
                return false;
            }
        }
        return true;
    }

    private void awakeOnRings() {
        for (LaneChannel lane : polled) if (lane != null) lane.awake();
    }

    /** The global barrier was released (or the job failed): wakes a poller blocked in the selector. */
    void wakeup() {
        Thread t = selecting;
        if (t != null && t != Thread.currentThread()) {
            Selector s = selector;
            if (s != null) s.wakeup();
        }
    }

    // Under pollLock: accepts, reads hellos, and dispatches what the ready lanes carry.
    private void handleSelected() throws IOException {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            if (!key.isValid()) continue;
            if (key.isAcceptable()) {
                LaneChannel c;
                while ((c = listener.accept()) != null) c.channel().register(selector, SelectionKey.OP_READ, c);
            } else if (key.attachment() instanceof LaneChannel unidentified) {
                hello(key, unidentified);
            } else {
                read(key, (Integer) key.attachment());
            }
        }
    }

    // Node 0: a dialled lane's hello binds it to the node whose token it carries, or closes it.
    private void hello(SelectionKey key, LaneChannel c) {
        LaneChannel.Hello h;
        try {
            h = c.readHello();
        } catch (IOException e) {
            key.cancel();
            c.close();
            return;
        }
        if (h == null) return;
        int node = h.node();
        LaneChannel old = null;
        String refused = null;
        synchronized (this) {
            if (node <= 0 || node >= tokens.length) {
                refused = "names node " + node + ", valid range [1, " + tokens.length + ")";
            } else if (!h.matches(tokens[node])) {
                refused = "does not carry the token node " + node + " was offered";
            } else if (!peers.holds(node, tokenConnections[node])) {
                refused = "was offered on a connection node " + node + " no longer has";
            } else {
                old = lanes[node];
                lanes[node] = c;
                laneConnections[node] = tokenConnections[node];
                tokens[node] = null;
                tokenConnections[node] = null;
            }
        }
        if (refused == null) {
            // shared memory saves the system calls of a poller that spins; one that blocks needs the kernel to wake it,
            // and the socket alone does that with less work (docs/runtime.md, "Barrier lanes in shared memory")
            if (spinNs.getAsLong() >= RING_SPIN_NS) {
                try {
                    c.offerRing(listener.nextRingFile(node)); // before polled shows the lane: its ring is read from the start
                } catch (IOException | RuntimeException e) {
                    LOG.debug("node 0's barrier lane to node {} stays on its socket: {}", node, e.toString());
                }
            }
            synchronized (this) {
                polled = lanes.clone();
            }
        }
        if (refused != null) {
            LOG.warn("node 0 closed a barrier lane whose hello {}", refused);
            key.cancel();
            c.close();
            return;
        }
        if (old != null) old.close();
        LOG.debug("node 0 bound a barrier lane to node {}", node);
        key.attach(node);
        read(key, node); // bytes after the hello
    }

    private void read(SelectionKey key, int node) {
        read(key, node, true);
    }

    // Reads node's lane: what its socket (if socketToo) and its ring hold. key: the socket's selection key (null if not registered).
    private void read(SelectionKey key, int node, boolean socketToo) {
        LaneChannel lane;
        Connection bound;
        synchronized (this) {
            lane = lanes[node];
            bound = laneConnections[node];
        }
        if (lane == null || key != null && lane.channel() != key.channel()) {
            if (key != null) key.cancel();
            return;
        }
        if (!peers.holds(node, bound)) {
            if (key != null) key.cancel();
            drop(node, lane, "node " + node + " has a new connection");
            return;
        }
        try {
            int n = lane.receive(m -> dispatch.accept(node, m), socketToo);
            received.add(n);
        } catch (IOException e) {
            if (key != null) key.cancel();
            drop(node, lane, e.toString());
        }
    }

    // Closes `lane` and forgets it, if it is still node's.
    private void drop(int node, LaneChannel lane, String why) {
        synchronized (this) {
            if (lanes[node] != lane) return;
            lanes[node] = null;
            laneConnections[node] = null;
            polled = lanes.clone();
        }
        lane.close();
        LOG.debug("node {} dropped its barrier lane to node {}: {}", nodeId, node, why);
    }

    /** @return the directory of node 0's lanes' shared memory files, or null (tests) */
    Path ringDirectory() { return listener == null ? null : listener.ringDirectory(); }

    /** @return node 0's listener path, or null (tests) */
    Path listenerPath() { return listener == null ? null : listener.path(); }

    /** @return whether node {@code node}'s lane is up at this node (tests) */
    synchronized boolean hasLane(int node) { return node < lanes.length && lanes[node] != null; }

    /** @return whether node {@code node}'s lane carries its frames in shared memory (tests) */
    synchronized boolean hasRing(int node) { return hasLane(node) && lanes[node].hasRing(); }

    /** @return frames this node sent to node {@code node} through their lane's shared memory (tests) */
    synchronized long ringFrames(int node) { return hasLane(node) ? lanes[node].ringFrames() : 0; }

    /** @return doorbells this node rang for node {@code node}'s poller (tests) */
    synchronized long bells(int node) { return hasLane(node) ? lanes[node].bells() : 0; }

    @Override
    public void close() {
        LaneChannel[] all;
        synchronized (this) {
            closed = true;
            all = lanes.clone();
            java.util.Arrays.fill(lanes, null);
            polled = lanes.clone();
        }
        for (LaneChannel l : all) if (l != null) l.close();
        if (listener != null) listener.close();
        if (pollLock.tryLock()) {
            try {
                closeSelectorIfClosed();
            } finally {
                pollLock.unlock();
            }
        } else {
            Selector s = selector;
            if (s != null) s.wakeup(); // the poller closes it as it leaves
        }
    }

    // Under pollLock: the selector goes once the lanes closed.
    private void closeSelectorIfClosed() {
        synchronized (this) {
            if (!closed) return;
        }
        Selector s = selector;
        selector = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
