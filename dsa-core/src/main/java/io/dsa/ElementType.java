package io.dsa;

/** Element type of a shared array, with its size in bytes. */
public enum ElementType {
    DOUBLE(8), FLOAT(4), INT(4), LONG(8);

    private final int bytes;

    ElementType(int bytes) { this.bytes = bytes; }

    /** @return size of one element in bytes */
    public int bytes() { return bytes; }
}
