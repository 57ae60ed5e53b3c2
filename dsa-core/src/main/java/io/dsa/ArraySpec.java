package io.dsa;

import java.util.Objects;

/**
 * What a shared array is: name, element type, shape, partition shape and distribution.
 * An immutable value; two specs are equal when every field is.
 *
 * <p>A 1-D array of {@code length} elements is stored as one row ({@code rows == 1}) with
 * partitions of one row.
 */
public final class ArraySpec {
    private final String name;
    private final ElementType elementType;
    private final int rows;
    private final int cols;
    private final int partitionRows;
    private final int partitionCols;
    private final Distribution distribution;
    private final boolean oneDimensional;

    private ArraySpec(String name, ElementType elementType, int rows, int cols, int partitionRows,
                      int partitionCols, Distribution distribution, boolean oneDimensional) {
        this.name = name;
        this.elementType = elementType;
        this.rows = rows;
        this.cols = cols;
        this.partitionRows = partitionRows;
        this.partitionCols = partitionCols;
        this.distribution = distribution;
        this.oneDimensional = oneDimensional;
    }

    /**
     * A 2-D array spec.
     *
     * @throws IllegalArgumentException naming the bad value and the valid range
     */
    public static ArraySpec of(String name, ElementType type, int rows, int cols, int partitionRows,
                               int partitionCols, Distribution distribution) {
        return validate(name, type, rows, cols, partitionRows, partitionCols, distribution, false);
    }

    /** A 1-D array spec of {@code length} elements in partitions of {@code partitionLength}. */
    public static ArraySpec oneDimensional(String name, ElementType type, int length, int partitionLength,
                                           Distribution distribution) {
        return validate(name, type, 1, length, 1, partitionLength, distribution, true);
    }

    private static ArraySpec validate(String name, ElementType type, int rows, int cols, int partitionRows,
                                      int partitionCols, Distribution distribution, boolean oneDimensional) {
        Objects.requireNonNull(type, "element type");
        Objects.requireNonNull(distribution, "distribution");
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("array name must be non-empty");
        }
        if (name.length() > 200) {
            throw new IllegalArgumentException("array name '" + name.substring(0, 20) + "...' has " + name.length()
                    + " characters, at most 200 allowed");
        }
        String what = oneDimensional ? "length" : "cols";
        check(name, "rows", rows, 1, Integer.MAX_VALUE);
        check(name, what, cols, 1, Integer.MAX_VALUE);
        check(name, "partition rows", partitionRows, 1, rows);
        check(name, oneDimensional ? "partition length" : "partition cols", partitionCols, 1, cols);
        long elements = (long) partitionRows * partitionCols;
        long maxElements = Integer.MAX_VALUE / type.bytes();
        if (elements > maxElements) {
            throw new IllegalArgumentException("partition of array '" + name + "' has " + elements
                    + " elements, at most " + maxElements + " allowed for " + type);
        }
        return new ArraySpec(name, type, rows, cols, partitionRows, partitionCols, distribution, oneDimensional);
    }

    private static void check(String name, String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " out of range [" + min + ", " + max
                    + "] for array '" + name + "'");
        }
    }

    /** @return the array's name */
    public String name() { return name; }

    /** @return the element type */
    public ElementType elementType() { return elementType; }

    /** @return rows (1 for a 1-D array) */
    public int rows() { return rows; }

    /** @return columns (the length of a 1-D array) */
    public int cols() { return cols; }

    /** @return rows of a full partition */
    public int partitionRows() { return partitionRows; }

    /** @return columns of a full partition */
    public int partitionCols() { return partitionCols; }

    /** @return how partitions are assigned to homes */
    public Distribution distribution() { return distribution; }

    /** @return whether the array was created 1-D */
    public boolean oneDimensional() { return oneDimensional; }

    /** @return a readable description, used in error messages: {@code DOUBLE[512x512] partitions 32x32 BLOCK} */
    public String shape() {
        String dims = oneDimensional ? "[" + cols + "]" : "[" + rows + "x" + cols + "]";
        String part = oneDimensional ? String.valueOf(partitionCols) : partitionRows + "x" + partitionCols;
        return elementType + dims + " partitions " + part + " " + distribution;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof ArraySpec)) return false;
        ArraySpec s = (ArraySpec) o;
        return rows == s.rows && cols == s.cols && partitionRows == s.partitionRows && partitionCols == s.partitionCols
                && oneDimensional == s.oneDimensional && name.equals(s.name) && elementType == s.elementType
                && distribution == s.distribution;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, elementType, rows, cols, partitionRows, partitionCols, distribution, oneDimensional);
    }

    @Override
    public String toString() { return "'" + name + "' " + shape(); }
}
