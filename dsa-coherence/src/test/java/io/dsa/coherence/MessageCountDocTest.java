package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps the "Message counts" table of {@code docs/coherence.md} true: every row's case is run on real
 * engines and the messages it takes are counted; a row without a scenario here, or a scenario without
 * a row, fails too. Counts written as {@code 2k + 2} are checked for k = 1, 2, 3.
 */
@org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.SECONDS)
class MessageCountDocTest {
    static final int NODES = 5;
    static final int A = 0, P = 0;   // partition 0 is homed at node 0

    /** Engines on a FIFO wire; {@link #settle} delivers until nothing is in flight. */
    static final class Wire {
        final ArrayDeque<CoherenceMessage> inFlight = new ArrayDeque<>();
        final CoherenceEngine[] engines = new CoherenceEngine[NODES];
        final RecordingPartitionStore[] stores = new RecordingPartitionStore[NODES];
        int sent;
        /** DATA_M messages sent with data */
        int dataMWithData;

        Wire() {
            HomeResolver homes = (a, p) -> p % NODES;
            for (int n = 0; n < NODES; n++) {
                stores[n] = new RecordingPartitionStore(n, homes, 8);
                engines[n] = new CoherenceEngine(n, NODES, homes, stores[n], m -> {
                    inFlight.addLast(m);
                    sent++;
                    if (m.op() == CoherenceOp.DATA_M && m.data() != null) dataMWithData++;
                });
            }
        }

        /** Node {@code node}'s worker overwrites the partition ({@link CoherenceEngine#requestOverwrite}). */
        Wire overwrite(int node) {
            stores[node].registerOverwrite(A, P, () -> { });
            engines[node].requestOverwrite(A, P);
            settle();
            assertEquals(Access.READ_WRITE, engines[node].access(A, P), "the overwrite is granted");
            return this;
        }

        /** @return the messages an overwrite by {@code node} takes, checked to carry no data to it */
        int countOverwrite(int node) {
            int withData = dataMWithData;
            int n = count(() -> overwrite(node));
            assertEquals(withData, dataMWithData, "the grant of an overwrite carries no data");
            return n;
        }

        Wire access(int node, Access needed) {
            engines[node].request(A, P, needed);
            return settle();
        }

        Wire settle() {
            while (!inFlight.isEmpty()) {
                CoherenceMessage m = inFlight.removeFirst();
                engines[m.destination()].onMessage(m);
            }
            return this;
        }

        /** @return the messages {@code action} takes, all delivered */
        int count(Runnable action) {
            int before = sent;
            action.run();
            settle();
            return sent - before;
        }
    }

    /** Case text as in the doc's first column -> messages measured for a given k. */
    static Map<String, IntUnaryOperator> scenarios() {
        Map<String, IntUnaryOperator> s = new LinkedHashMap<>();
        s.put("read miss, home in HOME or SHARED", k -> {
            Wire w = new Wire();
            int home = w.count(() -> w.access(1, Access.READ));
            int shared = w.count(() -> w.access(2, Access.READ));
            assertEquals(home, shared, "HOME and SHARED take the same messages");
            return home;
        });
        s.put("read miss, a third node owns it exclusively (intervention forwarding)", k -> {
            Wire w = new Wire().access(1, Access.READ_WRITE);
            return w.count(() -> w.access(2, Access.READ));
        });
        s.put("write miss, k sharers, requester not a sharer", k -> {
            Wire w = new Wire();
            for (int i = 1; i <= k; i++) w.access(i, Access.READ);
            return w.count(() -> w.access(k + 1, Access.READ_WRITE));
        });
        s.put("write miss, a third node owns it", k -> {
            Wire w = new Wire().access(1, Access.READ_WRITE);
            return w.count(() -> w.access(2, Access.READ_WRITE));
        });
        s.put("upgrade by a sharer, no other sharers", k -> {
            Wire w = new Wire().access(1, Access.READ);
            return w.count(() -> w.access(1, Access.READ_WRITE));
        });
        s.put("upgrade by a sharer, k other sharers", k -> {
            Wire w = new Wire();
            for (int i = 1; i <= k + 1; i++) w.access(i, Access.READ);
            return w.count(() -> w.access(1, Access.READ_WRITE));
        });
        s.put("overwrite, nobody else holds it", k -> new Wire().countOverwrite(1));
        s.put("overwrite, k sharers, requester holds no copy", k -> {
            Wire w = new Wire();
            for (int i = 1; i <= k; i++) w.access(i, Access.READ);
            return w.countOverwrite(k + 1);
        });
        s.put("overwrite, a third node owns it", k -> {
            Wire w = new Wire().access(1, Access.READ_WRITE);
            return w.countOverwrite(2);
        });
        s.put("home-local read, remote owner", k -> {
            Wire w = new Wire().access(1, Access.READ_WRITE);
            return w.count(() -> w.access(0, Access.READ));
        });
        s.put("home-local write, remote owner", k -> {
            Wire w = new Wire().access(1, Access.READ_WRITE);
            return w.count(() -> w.access(0, Access.READ_WRITE));
        });
        s.put("home-local write, k sharers", k -> {
            Wire w = new Wire();
            for (int i = 1; i <= k; i++) w.access(i, Access.READ);
            return w.count(() -> w.access(0, Access.READ_WRITE));
        });
        s.put("home-local access in HOME (or a read in SHARED)", k -> {
            Wire w = new Wire();
            int home = w.count(() -> { w.access(0, Access.READ); w.access(0, Access.READ_WRITE); });
            w.access(1, Access.READ);
            return home + w.count(() -> w.access(0, Access.READ));
        });
        s.put("push to k nodes that hold no copy (their next reads hit)", k -> {
            Wire w = new Wire();
            int[] readers = new int[k];
            for (int i = 1; i <= k; i++) {
                w.access(i, Access.READ);
                readers[i - 1] = i;
            }
            w.access(0, Access.READ_WRITE);   // the home writes: the readers are invalidated
            int push = w.count(() -> assertEquals(k, w.engines[0].push(A, P, readers)));
            for (int i = 1; i <= k; i++) {
                int reader = i;
                assertEquals(0, w.count(() -> w.access(reader, Access.READ)), "the read after the push is a hit");
            }
            return push;
        });
        s.put("drop of a shared copy, then the home's write (self-invalidation)", k -> {
            Wire w = new Wire();
            w.access(1, Access.READ);
            int drop = w.count(() -> assertTrue(w.engines[1].drop(A, P)));
            assertEquals(Access.NONE, w.engines[1].access(A, P), "the dropped copy is no longer read");
            assertEquals(0, w.count(() -> w.access(0, Access.READ_WRITE)), "the home's write needs no invalidation");
            return drop;
        });
        s.put("concurrent misses of one node's workers", k -> {
            Wire w = new Wire();
            // three workers of node 1 miss before any answer arrives: only the first sends
            int before = w.sent;
            w.engines[1].request(A, P, Access.READ);
            w.engines[1].request(A, P, Access.READ);
            w.engines[1].request(A, P, Access.READ);
            int requests = w.sent - before;
            w.settle();
            assertTrue(w.engines[1].access(A, P).allows(Access.READ));
            return requests;
        });
        return s;
    }

    private static final Pattern ROW = Pattern.compile("^\\| (.+?) \\| (.+?) \\| .*\\|$");
    private static final Pattern FORMULA = Pattern.compile("^(\\d*)k(?: \\+ (\\d+))?$");

    @Test
    void theDocumentedMessageCountsAreWhatTheEnginesSend() throws IOException {
        Map<String, String> documented = documentedCounts();
        Map<String, IntUnaryOperator> scenarios = scenarios();
        assertEquals(scenarios.keySet(), documented.keySet(), "the doc's cases and this test's scenarios must be the same");
        for (Map.Entry<String, String> row : documented.entrySet()) {
            String count = row.getValue();
            IntUnaryOperator measured = scenarios.get(row.getKey());
            Matcher f = FORMULA.matcher(count);
            if (f.matches()) {
                int a = f.group(1).isEmpty() ? 1 : Integer.parseInt(f.group(1));
                int b = f.group(2) == null ? 0 : Integer.parseInt(f.group(2));
                for (int k = 1; k <= 3; k++) {
                    assertEquals(a * k + b, measured.applyAsInt(k), row.getKey() + " with k = " + k + " (doc: " + count + ")");
                }
            } else {
                int expected = count.equals("one request") ? 1 : Integer.parseInt(count);
                assertEquals(expected, measured.applyAsInt(1), row.getKey() + " (doc: " + count + ")");
            }
        }
    }

    /** @return the "Message counts" table: case -> messages column */
    static Map<String, String> documentedCounts() throws IOException {
        List<String> lines = Files.readAllLines(docPath());
        int start = lines.indexOf("## Message counts");
        assertTrue(start >= 0, "docs/coherence.md has a '## Message counts' section");
        Map<String, String> rows = new LinkedHashMap<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            if (!m.matches() || m.group(1).equals("case") || m.group(1).startsWith("---")) continue;
            rows.put(m.group(1).trim(), m.group(2).trim());
        }
        assertFalse(rows.isEmpty(), "the Message counts table has rows");
        return rows;
    }

    static Path docPath() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve("docs/coherence.md");
            if (Files.isRegularFile(doc)) return doc;
        }
        throw new IllegalStateException("docs/coherence.md not found above " + Path.of("").toAbsolutePath());
    }
}
