package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.agent.wire.RegisterMessage;

/**
 * The registry's parameter lists: array specs to and from them, and the check of a registration's
 * parameters. They arrive from the network (a REGISTER from any node at node 0, a DEFINE from node
 * 0 at every node), so every value is checked against its range before it is used.
 */
final class Specs {
    /** Values in an array's parameter list. */
    static final int ARRAY_PARAMS = 7;

    private Specs() {}

    static long[] toParams(ArraySpec s) {
        return new long[] {s.elementType().ordinal(), s.rows(), s.cols(), s.partitionRows(), s.partitionCols(),
                s.distribution().ordinal(), s.oneDimensional() ? 1 : 0};
    }

    /**
     * The spec that {@link #toParams} wrote as {@code p}.
     *
     * @throws IllegalArgumentException naming the bad value and the valid range, as {@link ArraySpec} does
     */
    static ArraySpec fromParams(String name, long[] p) {
        if (p == null || p.length != ARRAY_PARAMS) {
            throw new IllegalArgumentException("array params of '" + name + "' have " + (p == null ? "no" : p.length)
                    + " values, expected " + ARRAY_PARAMS);
        }
        ElementType type = ElementType.values()[param(name, "element type", p[0], 0, ElementType.values().length - 1)];
        int rows = param(name, "rows", p[1], 1, Integer.MAX_VALUE);
        int cols = param(name, "cols", p[2], 1, Integer.MAX_VALUE);
        int partitionRows = param(name, "partition rows", p[3], 1, Integer.MAX_VALUE);
        int partitionCols = param(name, "partition cols", p[4], 1, Integer.MAX_VALUE);
        Distribution dist = Distribution.values()[param(name, "distribution", p[5], 0, Distribution.values().length - 1)];
        if (param(name, "one-dimensional flag", p[6], 0, 1) == 0) {
            return ArraySpec.of(name, type, rows, cols, partitionRows, partitionCols, dist);
        }
        param(name, "rows of a 1-D array", rows, 1, 1);
        param(name, "partition rows of a 1-D array", partitionRows, 1, 1);
        return ArraySpec.oneDimensional(name, type, cols, partitionCols, dist);
    }

    /**
     * Checks a registration's parameters (node 0 does, before it registers anything): an array's
     * spec, a variable's value type and initial bits, a barrier's parties in {@code [1, maxParties]},
     * a lock's none.
     *
     * @return why they are refused, or null when they are valid
     */
    static String invalidRegistration(int kind, String name, long[] params, int maxParties) {
        if (name == null || params == null) return "registration of kind " + kind + " without " + (name == null ? "a name" : "parameters");
        try {
            switch (kind) {
                case RegisterMessage.ARRAY -> fromParams(name, params);
                case RegisterMessage.VARIABLE -> {
                    count(name, "shared variable", params, 2);
                    param(name, "value type", params[0], VariableOps.INT, VariableOps.DOUBLE);
                }
                case RegisterMessage.BARRIER -> {
                    count(name, "barrier", params, 1);
                    param(name, "parties", params[0], 1, maxParties);
                }
                case RegisterMessage.LOCK -> count(name, "lock", params, 0);
                default -> throw new IllegalArgumentException("'" + name + "' has object kind " + kind + ", expected "
                        + RegisterMessage.ARRAY + " to " + RegisterMessage.LOCK);
            }
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static void count(String name, String what, long[] params, int expected) {
        if (params.length != expected) {
            throw new IllegalArgumentException(what + " params of '" + name + "' have " + params.length + " values, expected " + expected);
        }
    }

    private static int param(String name, String what, long value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " out of range [" + min + ", " + max + "] for '" + name + "'");
        }
        return (int) value;
    }
}
