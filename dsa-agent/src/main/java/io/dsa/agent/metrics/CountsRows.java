package io.dsa.agent.metrics;

import io.dsa.DsaException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link NodeCounts} as they travel from a host's agent JVM to the host and from a host to
 * {@code dsa status --watch}: tab-separated rows, one {@code N} row per node
 * ({@code N vm node bytesIn bytesOut barrierWaits barrierWaitNanos migrationPauses migrationPauseNanos
 * hitsCounted}, the last 1 or 0, absent in the rows of an earlier build, whose nodes counted hits)
 * followed by one {@code A} row per array ({@code A vm node array readHits writeHits readMisses
 * writeMisses invalidationsSent invalidationsReceived bytesIn bytesOut}). The rows come off the
 * network, so {@link #parse} checks every cell.
 */
public final class CountsRows {
    /** The longest VM or array name a row may carry. */
    static final int MAX_NAME_CHARS = 1024;

    private CountsRows() {}

    /** @return {@code counts} as rows: the node's, then its arrays' */
    public static List<String> format(NodeCounts counts) {
        List<String> rows = new ArrayList<>();
        rows.add(join("N\t" + counts.vm() + "\t" + counts.node(), counts.values()));
        for (ArrayCounts a : counts.arrays()) rows.add(join("A\t" + counts.vm() + "\t" + counts.node() + "\t" + a.array(), a.values()));
        return rows;
    }

    private static String join(String head, long[] values) {
        StringBuilder b = new StringBuilder(head);
        for (long v : values) b.append('\t').append(v);
        return b.toString();
    }

    /**
     * @return the nodes' counts the rows describe, in the order their {@code N} rows come
     * @throws DsaException naming the row and what is wrong: an unknown kind, a wrong number of
     *         cells, a name empty, overlong or with a control character, a count that is not a
     *         number {@code >= 0}, an array row before its node's row
     */
    public static List<NodeCounts> parse(List<String> rows) {
        Map<String, NodeCounts> nodes = new LinkedHashMap<>();
        Map<String, List<ArrayCounts>> arrays = new LinkedHashMap<>();
        for (String row : rows) {
            String[] cells = row.split("\t", -1);
            try {
                boolean node = cells[0].equals("N");
                if (!node && !cells[0].equals("A")) throw new IllegalArgumentException("kind '" + cells[0] + "' is not N or A");
                int names = node ? 3 : 4;
                int expected = names + (node ? NodeCounts.VALUES : ArrayCounts.VALUES);
                if (node && cells.length == names + NodeCounts.VALUES_BEFORE_HITS_COUNTED) expected = cells.length;
                if (cells.length != expected) throw new IllegalArgumentException(cells.length + " cells, expected " + expected);
                String vm = name(cells[1], "vm");
                int id = (int) count(cells[2], "node", Integer.MAX_VALUE);
                long[] v = new long[expected - names];
                for (int i = 0; i < v.length; i++) {
                    boolean flag = node && i == NodeCounts.VALUES_BEFORE_HITS_COUNTED;
                    v[i] = count(cells[names + i], flag ? "hitsCounted" : "count " + i, flag ? 1 : Long.MAX_VALUE);
                }
                String key = vm + "/" + id;
                if (node) {
                    boolean hitsCounted = v.length == NodeCounts.VALUES_BEFORE_HITS_COUNTED || v[NodeCounts.VALUES_BEFORE_HITS_COUNTED] == 1;
                    nodes.put(key, new NodeCounts(vm, id, v[0], v[1], v[2], v[3], v[4], v[5], List.of(), hitsCounted));
                    arrays.put(key, new ArrayList<>());
                } else {
                    List<ArrayCounts> of = arrays.get(key);
                    if (of == null) throw new IllegalArgumentException("array row before the row of node " + key);
                    of.add(ArrayCounts.of(name(cells[3], "array"), v));
                }
            } catch (IllegalArgumentException e) {
                throw new DsaException("counts row '" + shown(row) + "': " + e.getMessage());
            }
        }
        List<NodeCounts> all = new ArrayList<>();
        for (Map.Entry<String, NodeCounts> e : nodes.entrySet()) {
            NodeCounts n = e.getValue();
            all.add(new NodeCounts(n.vm(), n.node(), n.bytesIn(), n.bytesOut(), n.barrierWaits(), n.barrierWaitNanos(),
                    n.migrationPauses(), n.migrationPauseNanos(), arrays.get(e.getKey()), n.hitsCounted()));
        }
        return all;
    }

    private static String name(String cell, String what) {
        if (cell.isEmpty() || cell.length() > MAX_NAME_CHARS) {
            throw new IllegalArgumentException(what + " of " + cell.length() + " characters, expected 1 to " + MAX_NAME_CHARS);
        }
        for (int i = 0; i < cell.length(); i++) {
            if (Character.isISOControl(cell.charAt(i))) throw new IllegalArgumentException(what + " holds a control character at " + i);
        }
        return cell;
    }

    private static long count(String cell, String what, long max) {
        long v;
        try {
            v = Long.parseLong(cell);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + shown(cell) + "' is not a number");
        }
        if (v < 0 || v > max) throw new IllegalArgumentException(what + " " + v + " out of range [0, " + max + "]");
        return v;
    }

    private static String shown(String text) {
        String cut = text.length() > 100 ? text.substring(0, 100) + "..." : text;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
