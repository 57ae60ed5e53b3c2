package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * How the job's failure names a lost node: its id, where it ran, and what went with it (the
 * partitions of every array homed there, whose directory entries and, for partitions nobody else
 * held exclusive, only current copy it kept; the shared variables homed there). A node that had
 * already finished its own work counts as lost only while something it homed may still be needed:
 * {@link #stillNeeded}. Stateless.
 */
final class LostNode {
    /** Partitions listed by number per array; the rest are counted. */
    static final int MAX_LISTED = 16;

    private LostNode() {}

    /**
     * @param arrays the VM's arrays
     * @param variables the names of the shared variables homed at {@code node}
     * @return e.g. {@code "array 'A' partitions [1, 5, 9] of 12; variable 'sum'"}, or empty when it homed nothing
     */
    static String homed(int node, Collection<ArrayLayout> arrays, Collection<String> variables) {
        List<String> parts = new ArrayList<>();
        for (ArrayLayout layout : arrays) {
            StringBuilder listed = new StringBuilder();
            int count = 0;
            for (int p = 0; p < layout.partitionCount(); p++) {
                if (layout.homeOf(p) != node) continue;
                if (count < MAX_LISTED) listed.append(count == 0 ? "" : ", ").append(p);
                count++;
            }
            if (count == 0) continue;
            String more = count > MAX_LISTED ? ", ... " + (count - MAX_LISTED) + " more" : "";
            parts.add("array '" + layout.spec().name() + "' partition" + (count == 1 ? " [" : "s [") + listed + more + "] of "
                    + layout.partitionCount());
        }
        for (String v : variables) parts.add("variable '" + v + "'");
        return String.join("; ", parts);
    }

    /**
     * A node that finished its work may still be needed by those that have not: it is, when it
     * homed anything (their reads and writes of its partitions and variables go there).
     */
    static boolean stillNeeded(String homed) { return !homed.isEmpty(); }

    /**
     * @param address where the node ran ({@code host:port}), or null if it had not joined
     * @param finished whether it had reported its own work done
     * @param homed what it homed ({@link #homed}), possibly empty
     * @param why how it was lost (the connection's close reason)
     * @return the failure's text, e.g. {@code "lost node 2 at 10.0.0.3:7001 (it homed array 'A' partitions [2, 6] of 8): ..."}
     */
    static String describe(int node, String address, boolean finished, String homed, String why) {
        return "lost node " + node + (address == null ? " before it joined" : " at " + address)
                + (finished ? " after it finished its own work" : "")
                + homedClause(homed) + ": " + why;
    }

    /** @return {@code " (it homed ...)"} for a failure's text, or empty when {@code homed} is */
    static String homedClause(String homed) {
        return homed.isEmpty() ? "" : " (it homed " + homed + ")";
    }
}
