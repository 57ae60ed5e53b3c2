package io.dsa;

/** A DSA failure: a bad argument, a shape mismatch, a lost node, or a failed job. */
public class DsaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what failed, with the offending value and the expected one */
    public DsaException(String message) { super(message); }

    /** @param message what failed @param cause the underlying failure */
    public DsaException(String message, Throwable cause) { super(message, cause); }
}
