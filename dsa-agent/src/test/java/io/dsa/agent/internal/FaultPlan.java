package io.dsa.agent.internal;

import io.dsa.agent.transport.WireRoundTrip;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The faults an {@link InMemoryNetwork} applies to the messages it carries, chosen by a seed:
 * rules that match a message by its wire type (and a coherence message's op), its sender and its
 * receiver, and drop, delay, duplicate it or cut the network when it passes; and cuts, which stop
 * every frame between two nodes in both directions, heartbeats included, without closing anything
 * (a network that drops packets without a reset). As TCP across a cut, a connection loses nothing
 * while it lives: its frames wait, in order, and arrive once the cut is healed, unless the failure
 * detector closed the connection first.
 *
 * <p>A delayed message holds its connection: it and every message sent after it on that connection
 * wait, in order (TCP's FIFO per connection is kept), until a seeded number of other messages
 * reached their nodes or a seeded time passed, whichever comes first. A duplicate arrives twice,
 * each copy decoded on its own; a reordered one waits alone and is overtaken by those sent after it
 * (TCP does neither: they show what the runtime does when its assumptions break).
 *
 * <p>Every choice is drawn from a {@link Random} per ordered pair of nodes, seeded from the plan's
 * seed and the pair, so the faults applied to the n-th message from node a to node b depend only
 * on the seed and the messages on that pair. The runtime's threads are not under the seed: a seed
 * replays the faults, not every interleaving. The seed is printed when the plan is made;
 * {@code -Ddsa.test.seed=S} makes every plan of the run use S ({@link #seed}).
 *
 * <p>Thread-safe: the network calls it under its posting lock, tests from their own thread.
 */
final class FaultPlan {
    /** A rule's sender or receiver that matches any node. */
    static final int ANY = -1;
    private static final int TRACE = 40;

    enum Action { DELIVER, DROP, DELAY, REORDER, DUPLICATE, CUT }

    /** What happens to one message: its action and, for a delay, its release condition. */
    record Verdict(Action action, int afterDeliveries, long forNs) {
        static final Verdict DELIVER = new Verdict(Action.DELIVER, 0, 0);
        static final Verdict DROP = new Verdict(Action.DROP, 0, 0);
        /** Held on its connection, with what follows it, until the cut is healed (discarded if the connection closes first). */
        static final Verdict CUT = new Verdict(Action.CUT, 0, 0);
        static final Verdict DUPLICATE = new Verdict(Action.DUPLICATE, 0, 0);
    }

    final long seed;
    private final List<Rule> rules = new ArrayList<>();
    private final Set<Long> cutPairs = new HashSet<>();
    private final Set<Integer> isolated = new HashSet<>();
    private final Map<Long, Random> pairRandoms = new HashMap<>();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private long decided;

    /** A plan of {@code seed}, printed with what replays it. */
    FaultPlan(long seed) {
        this.seed = seed;
        System.out.println("fault plan seed " + seed + " (-Ddsa.test.seed=" + seed + " replays it)");
    }

    /** @return {@code -Ddsa.test.seed} if set, else a fresh seed from the clock */
    static long seed() {
        Long fixed = Long.getLong("dsa.test.seed");
        return fixed != null ? fixed : System.nanoTime() ^ 0x5DEECE66DL;
    }

    /**
     * @param types wire type names ({@code "COHERENCE"}, {@code "BARRIER_ARRIVE"}, {@code "HEARTBEAT"}: the
     *        {@code MessageType} names); none: every type
     * @return a new rule, matching from any node to any node, always, without limit, until an action is set
     */
    synchronized Rule on(String... types) {
        Rule r = new Rule(Set.of(types));
        rules.add(r);
        return r;
    }

    /** Cuts nodes {@code a} and {@code b} from each other, both ways: their frames wait from now on. */
    synchronized void cut(int a, int b) {
        cutPairs.add(pairKey(a, b));
        log("cut " + a + " <-> " + b);
    }

    /** Heals the cut between {@code a} and {@code b} (a connection closed meanwhile stays closed). */
    synchronized void heal(int a, int b) {
        cutPairs.remove(pairKey(a, b));
        log("healed " + a + " <-> " + b);
    }

    /** Cuts {@code node} from every other node, both ways. */
    synchronized void isolate(int node) {
        isolated.add(node);
        log("isolated node " + node);
    }

    /** Heals every cut of {@code node} made by {@link #isolate}. */
    synchronized void rejoin(int node) {
        isolated.remove(node);
        log("node " + node + " rejoined");
    }

    /** @return whether frames between {@code a} and {@code b} are dropped now */
    synchronized boolean isCut(int a, int b) {
        return a != b && (isolated.contains(a) || isolated.contains(b) || cutPairs.contains(pairKey(a, b)));
    }

    /**
     * The type a dial's handshake goes by in rules ({@code plan.on(FaultPlan.HANDSHAKE).from(2).to(1).drop()}):
     * dropped, the dial fails; delayed, it connects after the delay (its {@code maxDelayMs}); cut or
     * anything else, it connects.
     */
    static final String HANDSHAKE = "HANDSHAKE";

    /** @return what the network does with a dial from node {@code from} to node {@code to}, now (rules on {@link #HANDSHAKE}) */
    synchronized Verdict decideDial(int from, int to) {
        decided++;
        if (isCut(from, to)) return Verdict.CUT;
        return decide(from, to, HANDSHAKE, null);
    }

    /** @return what the network does with {@code message} from node {@code from} to node {@code to}, sent now */
    synchronized Verdict decide(int from, int to, Object message) {
        decided++;
        if (isCut(from, to)) return Verdict.CUT;
        return decide(from, to, WireRoundTrip.typeName(message), message);
    }

    private Verdict decide(int from, int to, String type, Object message) {
        Random rnd = pairRandoms.computeIfAbsent(((long) from << 32) | (to & 0xffffffffL),
                k -> new Random(seed * 0x9E3779B97F4A7C15L + k));
        for (Rule r : rules) {
            if (r.action == null || !r.matches(from, to, type, message)) continue;
            if (r.limit >= 0 && r.fired >= r.limit) continue;
            if (r.skip > 0) {
                r.skip--;
                continue;
            }
            if (r.probability < 1 && rnd.nextDouble() >= r.probability) continue;
            r.fired++;
            if (r.firstFiredNs == 0) r.firstFiredNs = System.nanoTime();
            Verdict v = switch (r.action) {
                case DROP -> Verdict.DROP;
                case DUPLICATE -> Verdict.DUPLICATE;
                case DELAY, REORDER -> new Verdict(r.action, 1 + rnd.nextInt(r.maxDeliveries),
                        TimeUnit.MILLISECONDS.toNanos(1 + rnd.nextInt((int) r.maxDelayMs)));
                case CUT -> {
                    isolated.add(r.isolate);
                    yield Verdict.CUT;
                }
                case DELIVER -> Verdict.DELIVER;
            };
            log(r.action + (v.action == Action.DELAY || v.action == Action.REORDER ? "(" + v.afterDeliveries + " deliveries or " + v.forNs / 1000 + " us)" : "")
                    + " " + from + "->" + to + " " + describe(type, message) + (r.action == Action.CUT ? ": isolated node " + r.isolate : ""));
            return v;
        }
        return Verdict.DELIVER;
    }

    private static String describe(String type, Object message) {
        return message instanceof CoherenceMessage c ? type + " " + c.op() + " array " + c.arrayId() + " partition " + c.partition() : type;
    }

    private void log(String event) {
        if (trace.size() == TRACE) trace.poll();
        trace.add(decided + ": " + event);
    }

    /** @return the seed and the last faults applied, for a failure's message */
    synchronized String describe() {
        return "fault plan seed " + seed + " (-Ddsa.test.seed=" + seed + " replays it), last faults:\n  " + String.join("\n  ", trace);
    }

    private static long pairKey(int a, int b) {
        return ((long) Math.min(a, b) << 32) | Math.max(a, b);
    }

    /** One rule: what it matches, how often it fires, and its action. Configure before traffic flows. */
    final class Rule {
        final Set<String> types;
        Set<CoherenceOp> ops = EnumSet.allOf(CoherenceOp.class);
        int from = ANY;
        int to = ANY;
        double probability = 1;
        int limit = -1;
        int skip;
        Predicate<Object> where = m -> true;
        Action action;
        int maxDeliveries;
        long maxDelayMs;
        int isolate = -1;
        int fired;
        long firstFiredNs;

        private Rule(Set<String> types) { this.types = types; }

        boolean matches(int f, int t, String type, Object message) {
            return (from == ANY || from == f) && (to == ANY || to == t) && (types.isEmpty() || types.contains(type))
                    && (!(message instanceof CoherenceMessage c) || ops.contains(c.op())) && where.test(message);
        }

        /** Matches only messages {@code condition} accepts as well. */
        Rule where(Predicate<Object> condition) {
            synchronized (FaultPlan.this) { where = condition; }
            return this;
        }

        /** Lets the first {@code n} messages it matches pass: it fires from the next one on. */
        Rule skip(int n) {
            if (n < 0) throw new IllegalArgumentException("skip " + n + " out of range [0, 2^31)");
            synchronized (FaultPlan.this) { skip = n; }
            return this;
        }

        /** Matches only coherence messages with one of {@code these} ops (others of its types still match). */
        Rule ops(CoherenceOp first, CoherenceOp... rest) {
            synchronized (FaultPlan.this) { ops = EnumSet.of(first, rest); }
            return this;
        }

        /** Matches only messages node {@code node} sends. */
        Rule from(int node) {
            synchronized (FaultPlan.this) { from = node; }
            return this;
        }

        /** Matches only messages sent to node {@code node}. */
        Rule to(int node) {
            synchronized (FaultPlan.this) { to = node; }
            return this;
        }

        /** Fires on a message it matches with probability {@code p} in (0, 1], drawn from the pair's seeded random. */
        Rule probability(double p) {
            if (!(p > 0 && p <= 1)) throw new IllegalArgumentException("probability " + p + " out of range (0, 1]");
            synchronized (FaultPlan.this) { probability = p; }
            return this;
        }

        /** Fires at most {@code n} times (n at least 1). */
        Rule times(int n) {
            if (n < 1) throw new IllegalArgumentException("times " + n + " out of range [1, 2^31)");
            synchronized (FaultPlan.this) { limit = n; }
            return this;
        }

        /** The message is lost. */
        Rule drop() { return act(Action.DROP); }

        /** The message arrives twice. */
        Rule duplicate() { return act(Action.DUPLICATE); }

        /**
         * The message, and what follows it on its connection, waits until 1 to {@code maxDeliveries}
         * other messages arrived anywhere, or 1 to {@code maxDelayMs} ms passed (both seeded).
         */
        Rule delay(int maxDeliveries, long maxDelayMs) {
            if (maxDeliveries < 1 || maxDelayMs < 1 || maxDelayMs > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("delay of " + maxDeliveries + " deliveries or " + maxDelayMs
                        + " ms: both must be at least 1 (and the time below 2^31 ms)");
            }
            synchronized (FaultPlan.this) {
                this.maxDeliveries = maxDeliveries;
                this.maxDelayMs = maxDelayMs;
            }
            return act(Action.DELAY);
        }

        /**
         * The message alone waits until 1 to {@code maxLater} messages sent after it on its
         * connection arrived, or 1 to {@code maxDelayMs} ms passed (both seeded): it is overtaken,
         * which TCP never does (it shows what the runtime does when the order breaks).
         */
        Rule reorder(int maxLater, long maxDelayMs) {
            delay(maxLater, maxDelayMs);
            synchronized (FaultPlan.this) { action = Action.REORDER; }
            return this;
        }

        /** When it fires, {@code node} is cut from every other node (this message is the first to wait for the heal). */
        Rule thenIsolate(int node) {
            synchronized (FaultPlan.this) { isolate = node; }
            return act(Action.CUT);
        }

        private Rule act(Action a) {
            synchronized (FaultPlan.this) {
                if (action != null) throw new IllegalStateException("the rule already " + action + "s");
                action = a;
            }
            return this;
        }

        /** @return how many messages it fired on so far */
        int fired() {
            synchronized (FaultPlan.this) { return fired; }
        }

        /** @return {@link System#nanoTime()} when it first fired, 0 before */
        long firstFiredNs() {
            synchronized (FaultPlan.this) { return firstFiredNs; }
        }
    }
}
