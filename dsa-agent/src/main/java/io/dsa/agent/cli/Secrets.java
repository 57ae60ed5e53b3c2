package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads the cluster secret as an operator expects (docs/hosts.md, "Secrets"): from a file that
 * only its owner may read (mode 600), from the environment variable {@value DsaConfig#SECRET_ENV},
 * or from a pipe ({@code dsa node --secret-stdin}); and refuses a secret that is too weak.
 *
 * <p>The rule for "too weak": fewer than {@value #MIN_BYTES} bytes, or fewer than
 * {@value #MIN_BITS} bits by a simple estimate: length x log2(distinct symbols), counting at most
 * 4 bits per character when every character is a hex digit and at most 6 when every character is
 * a base64 character. {@code aaaaaaaaaaaaaaaa} has 0 bits; 64 random hex digits (what
 * {@code dsa keygen} writes) have about 256. The estimate is an upper bound for random text; a
 * secret that passes it can still be guessable (a phrase), so make secrets with {@code dsa keygen}.
 * The secret's bytes are the file's text (UTF-8) without surrounding white space, as before.
 */
final class Secrets {
    /** Fewest bytes of a secret (the transport's minimum). */
    static final int MIN_BYTES = 16;
    /** Fewest estimated bits of a secret. */
    static final int MIN_BITS = 128;
    /** Longest secret line read from a pipe. */
    static final int MAX_LINE_BYTES = 4096;
    /** How to make a good secret, for messages. */
    static final String HOW_TO_MAKE = "make one with 'dsa keygen'";

    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = Set.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private Secrets() {}

    /** A secret that cannot be used; the message says why and how to fix it. */
    static final class SecretException extends IllegalArgumentException {
        SecretException(String message) { super(message); }
    }

    /**
     * @return the secret in {@code file}
     * @param allowInsecure accept a file that group or others may read or write, with a warning
     *        on {@code warnings}
     * @throws SecretException when the file cannot be read, is not private (unless allowed), or
     *         holds a weak secret
     */
    static byte[] fromFile(Path file, boolean allowInsecure, Warnings warnings) {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Set<PosixFilePermission> mode;
            try {
                mode = Files.getPosixFilePermissions(file);
            } catch (IOException e) {
                throw new SecretException("cannot read secret file " + file + ": " + e);
            }
            if (mode.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
                String what = "secret file " + file + " has mode " + octal(mode) + " (" + PosixFilePermissions.toString(mode)
                        + "): group or others can read or write it";
                if (!allowInsecure) {
                    throw new SecretException(what + "; run 'chmod 600 " + file + "', or pass --allow-insecure-secret to use it anyway");
                }
                warnings.warn("warning: " + what + "; used because of --allow-insecure-secret");
            }
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SecretException("cannot read secret file " + file + ": " + e);
        }
        return check(text.strip(), "secret file " + file);
    }

    /**
     * @return the secret in {@value DsaConfig#SECRET_ENV}
     * @throws SecretException when it is not set (naming both ways to give one) or is weak
     */
    static byte[] fromEnvironment(Function<String, String> env) {
        String value = env.apply(DsaConfig.SECRET_ENV);
        if (value == null || value.isBlank()) throw new SecretException(missing());
        return check(value.strip(), "the environment variable " + DsaConfig.SECRET_ENV);
    }

    /**
     * @return the secret on the first line of {@code in} (a pipe from {@code dsa run})
     * @throws SecretException when the stream ends first, the line is too long, or the secret is weak
     */
    static byte[] fromStream(InputStream in) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try {
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    if (line.size() == 0) throw new SecretException("no cluster secret on stdin: the stream ended first");
                    break;
                }
                if (line.size() >= MAX_LINE_BYTES) throw new SecretException("the secret on stdin is longer than " + MAX_LINE_BYTES + " bytes");
                line.write(b);
            }
        } catch (IOException e) {
            throw new SecretException("cannot read the cluster secret from stdin: " + e);
        }
        return check(line.toString(StandardCharsets.UTF_8).strip(), "stdin");
    }

    /** @return the message for a command that got no secret at all */
    static String missing() {
        return "no cluster secret: give --secret-file FILE (mode 600) or set the environment variable " + DsaConfig.SECRET_ENV
                + "; " + HOW_TO_MAKE;
    }

    /**
     * @return the secret's bytes
     * @throws SecretException when it is shorter than {@value #MIN_BYTES} bytes or weaker than {@value #MIN_BITS} bits
     */
    static byte[] check(String secret, String source) {
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_BYTES) {
            throw new SecretException("the cluster secret in " + source + " has " + bytes.length + " bytes, at least " + MIN_BYTES
                    + " required; " + HOW_TO_MAKE);
        }
        double bits = estimatedBits(secret);
        if (bits < MIN_BITS) {
            throw new SecretException(String.format(java.util.Locale.ROOT, "the cluster secret in %s is too weak: about %.0f bits"
                    + " (length x log2(distinct symbols)), at least %d required; %s", source, bits, MIN_BITS, HOW_TO_MAKE));
        }
        return bytes;
    }

    /** @return length x log2(distinct symbols), at most 4 bits per hex digit or 6 per base64 character */
    static double estimatedBits(String secret) {
        int[] codePoints = secret.codePoints().toArray();
        long distinct = secret.codePoints().distinct().count();
        double perSymbol = distinct <= 1 ? 0 : Math.log(distinct) / Math.log(2);
        if (secret.chars().allMatch(c -> Character.digit(c, 16) >= 0)) perSymbol = Math.min(perSymbol, 4);
        else if (secret.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || "+/=-_".indexOf(c) >= 0))) {
            perSymbol = Math.min(perSymbol, 6);
        }
        return codePoints.length * perSymbol;
    }

    private static String octal(Set<PosixFilePermission> mode) {
        int bits = 0;
        for (PosixFilePermission p : mode) bits |= 1 << (8 - p.ordinal());
        return Integer.toOctalString(bits);
    }

    /** Where warnings go; {@link SecretOptions} prints each once. */
    interface Warnings {
        void warn(String message);
    }
}
