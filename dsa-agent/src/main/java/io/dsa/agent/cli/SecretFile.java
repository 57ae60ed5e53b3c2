package io.dsa.agent.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A fresh cluster secret (32 random bytes, hex) in a temporary file readable only by its owner,
 * so that child nodes read it from the file and it never appears on a command line. Deleted by
 * {@link #close()}, or at JVM exit at the latest.
 */
final class SecretFile implements AutoCloseable {
    static final int SECRET_BYTES = 32;

    private final Path path;

    private SecretFile(Path path) { this.path = path; }

    /** @return a new secret file */
    static SecretFile create() {
        byte[] secret = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(secret);
        try {
            Path file;
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                // Created with 600 from the start: no moment where another user could read it.
                file = Files.createTempFile("dsa-secret-", ".hex",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                file = Files.createTempFile("dsa-secret-", ".hex");
                file.toFile().setReadable(false, false);
                file.toFile().setReadable(true, true);
                file.toFile().setWritable(false, false);
                file.toFile().setWritable(true, true);
            }
            file.toFile().deleteOnExit();
            Files.writeString(file, HexFormat.of().formatHex(secret), StandardCharsets.US_ASCII);
            return new SecretFile(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster secret file: " + e.getMessage(), e);
        }
    }

    /** @return the file's path */
    Path path() { return path; }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // deleteOnExit will try again
        }
    }
}
