package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import io.dsa.agent.wire.AgentRow;
import java.util.List;

/**
 * One row of a host's status reply ({@link AgentHost#STATUS_COLUMNS}): an agent the host serves.
 * It travels as explicit fields ({@link AgentRow} in a {@link io.dsa.agent.wire.HostStatusMessage},
 * {@link #toWire}). The rows a command or another host reads come over the network, so {@link #of}
 * checks every field before anything uses it: a bad row is refused with a {@link DsaException}
 * naming the row and the column.
 *
 * @param vm the VM's name, at most {@value #MAX_TEXT_CHARS} characters
 * @param node the node's (or clone's) id, {@code >= 0}
 * @param host the serving host's {@code host:port}
 * @param agent the agent's {@code host:port}, or {@value #NO_AGENT} while it has none
 * @param state where the agent is in its life: {@code STARTING}, {@code RUNNING}, {@code SUSPENDED},
 *        {@code MOVED}, {@code DONE}, {@code FAILED}, {@code STOPPED} or {@code CLONE}
 * @param program the program's class name, at most {@value #MAX_TEXT_CHARS} characters
 * @param homed partitions homed at the agent, {@code >= 0}, or {@link #UNKNOWN} (a finished node's row)
 * @param cached partitions cached at the agent, {@code >= 0}, or {@link #UNKNOWN}
 * @param nodes how many nodes the row's VM has, so that a client can wait for all of them; 0 where
 *        the host did not say
 */
public record StatusRow(String vm, int node, String host, String agent, String state, String program, int homed, int cached,
                        int nodes) {
    /** The agent column of an agent that does not listen (yet). */
    public static final String NO_AGENT = "-";
    /** A count the host no longer knows (the node has ended); travels and prints as {@code -}. */
    public static final int UNKNOWN = -1;

    /** A row without the VM's node count (0: not said). */
    public StatusRow(String vm, int node, String host, String agent, String state, String program, int homed, int cached) {
        this(vm, node, host, agent, state, program, homed, cached, 0);
    }
    /** The longest VM name or program class name a row may carry. */
    public static final int MAX_TEXT_CHARS = 1024;

    /**
     * Checks one row as it came over the network.
     *
     * @throws DsaException naming the row and what is wrong: a count out of range, an address
     *         that does not parse, an unknown state, an empty or overlong text, or a control
     *         character (a row never holds one, so it cannot forge lines of the table
     *         {@code dsa status} prints)
     */
    public static StatusRow of(AgentRow r) {
        if (r == null) throw new DsaException("status row is missing");
        try {
            return new StatusRow(text(r.vm(), "VM"), count(r.node(), "NODE"), address(r.host(), "HOST"),
                    NO_AGENT.equals(r.agent()) ? NO_AGENT : address(r.agent(), "AGENT"), state(r.state()), text(r.program(), "PROGRAM"),
                    countOrUnknown(r.homed(), "HOMED"), countOrUnknown(r.cached(), "CACHED"), count(r.nodes(), "NODES"));
        } catch (IllegalArgumentException e) {
            throw new DsaException("status row of vm '" + (r.vm() == null ? null : shown(r.vm())) + "' node " + r.node() + ": "
                    + e.getMessage());
        }
    }

    /**
     * Checks a status reply's rows.
     *
     * @throws DsaException when there are none (null: a reply without rows) or one is bad ({@link #of})
     */
    public static List<StatusRow> checkAll(List<AgentRow> rows) {
        if (rows == null) throw new DsaException("status reply without rows");
        List<StatusRow> checked = new java.util.ArrayList<>(rows.size());
        for (AgentRow row : rows) checked.add(of(row));
        return checked;
    }

    /** @return the row as it travels */
    public AgentRow toWire() { return new AgentRow(vm, node, host, agent, state, program, homed, cached, nodes); }

    /** @return {@code n} as a status row shows it: the number, or {@code -} for {@link #UNKNOWN} */
    public static String count(int n) {
        return n == UNKNOWN ? "-" : Integer.toString(n);
    }

    /** @return whether the agent serves its node: running, held for a transfer, or a clone */
    public boolean serving() {
        return state.equals(HostedJob.State.RUNNING.name()) || state.equals(HostedJob.State.SUSPENDED.name())
                || state.equals(HostedJob.State.CLONE.name());
    }

    /** @return the program's class name without its package */
    public String programSimpleName() { return program.substring(program.lastIndexOf('.') + 1); }

    private static final List<String> STATES = java.util.Arrays.stream(HostedJob.State.values()).map(Enum::name).toList();

    private static String text(String cell, String column) {
        if (cell == null || cell.isEmpty() || cell.length() > MAX_TEXT_CHARS) {
            throw new IllegalArgumentException(column + " of " + (cell == null ? 0 : cell.length()) + " characters, expected 1 to "
                    + MAX_TEXT_CHARS);
        }
        for (int i = 0; i < cell.length(); i++) {
            if (Character.isISOControl(cell.charAt(i))) {
                throw new IllegalArgumentException(column + " holds control character " + (int) cell.charAt(i) + " at " + i);
            }
        }
        return cell;
    }

    private static int countOrUnknown(int value, String column) {
        return value == UNKNOWN ? UNKNOWN : count(value, column);
    }

    private static int count(int value, String column) {
        if (value < 0) throw new IllegalArgumentException(column + " " + value + " out of range [0, " + Integer.MAX_VALUE + "]");
        return value;
    }

    /** @return {@code cell} as {@code host:port} (normalised) @throws IllegalArgumentException naming {@code column} */
    static String address(String cell, String column) {
        return HostPort.parse(text(cell, column)).toString();
    }

    private static String state(String cell) {
        if (cell == null || !STATES.contains(cell)) throw new IllegalArgumentException("STATE '" + (cell == null ? null : shown(cell)) + "' is not one of " + STATES);
        return cell;
    }

    private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();

    /**
     * @return {@code text} for a message: at most 100 characters, control characters escaped
     *         (digit by digit: with a {@code String.format} per character, refusing a 211-byte
     *         reply allocated 86,688 bytes under Jazzer's instrumentation; found by the
     *         {@code host-replies} fuzz target)
     */
    static String shown(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < 100; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t') {
                // a control character is at most U+009F: two hex digits complete the escape
                b.append("\\u00").append(HEX_DIGITS[c >> 4]).append(HEX_DIGITS[c & 0xf]);
            } else {
                b.append(c);
            }
        }
        return text.length() > 100 ? b + "..." : b.toString();
    }
}
