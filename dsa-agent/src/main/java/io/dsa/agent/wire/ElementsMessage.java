package io.dsa.agent.wire;

import io.dsa.ElementType;

/**
 * The answer to a {@link ReadArrayMessage} (child to host, and host to launcher with the
 * launcher's request id): consecutive elements of an array, as their bits.
 *
 * @param requestId the request's id
 * @param from the flat index of the first element, {@code >= 0}
 * @param elementType the array's {@link ElementType} ordinal
 * @param bits one entry per element: {@link Double#doubleToRawLongBits} of a double,
 *        {@link Float#floatToRawIntBits} of a float, the value of a long or an int
 */
public record ElementsMessage(long requestId, long from, int elementType, long[] bits) implements WireMessage {
    /** @return element {@code i} of {@link #bits()} as text, as {@code Double.toString} (or the float, long, int form) writes it */
    public String text(int i) {
        long b = bits[i];
        return switch (ElementType.values()[elementType]) {
            case DOUBLE -> Double.toString(Double.longBitsToDouble(b));
            case FLOAT -> Float.toString(Float.intBitsToFloat((int) b));
            case LONG -> Long.toString(b);
            case INT -> Integer.toString((int) b);
        };
    }
}
