package io.dsa;

/**
 * Combining operations for reductions, scans and accumulates. {@code AND}, {@code OR}, {@code XOR}
 * apply to integers ({@code long} and {@code int}) only.
 */
public enum ReduceOp {
    SUM, MIN, MAX, PROD, AND, OR, XOR;

    /** @return whether this op applies to elements of {@code type}: the bitwise ops only to INT and LONG */
    public boolean appliesTo(ElementType type) {
        return ordinal() <= PROD.ordinal() || type == ElementType.INT || type == ElementType.LONG;
    }

    /**
     * @return {@code a op b}
     * @throws DsaException for a bitwise op, which has no meaning on doubles
     */
    public double apply(double a, double b) {
        switch (this) {
            case SUM: return a + b;
            case MIN: return Math.min(a, b);
            case MAX: return Math.max(a, b);
            case PROD: return a * b;
            default: throw new DsaException("reduce op " + this + " is defined for longs only, not doubles");
        }
    }

    /** @return {@code a op b} */
    public long apply(long a, long b) {
        switch (this) {
            case SUM: return a + b;
            case MIN: return Math.min(a, b);
            case MAX: return Math.max(a, b);
            case PROD: return a * b;
            case AND: return a & b;
            case OR: return a | b;
            case XOR: return a ^ b;
            default: throw new AssertionError(this);
        }
    }
}
