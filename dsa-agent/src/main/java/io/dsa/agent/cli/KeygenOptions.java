package io.dsa.agent.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * What {@code dsa keygen} and {@code dsa secret new} do: write a fresh cluster secret (32 random
 * bytes as 64 hex digits) to a file created with mode 600 and moved into place atomically, so
 * the file is never readable by others nor seen half written; an existing file is kept unless
 * {@code --force}.
 */
final class KeygenOptions {
    /** Random bytes of a new secret. */
    static final int SECRET_BYTES = 32;

    @Option(names = {"--out", "-o"}, paramLabel = "FILE", defaultValue = "${sys:user.home}/.dsa-secret",
            description = "Where to write the secret; '-' prints it on stdout (default: ${DEFAULT-VALUE}).")
    String out;

    @Option(names = "--force", description = "Replace FILE if it exists (hosts using the old secret then refuse this one).")
    boolean force;

    /** @return the exit code: 0 written, 1 refused (the file exists) or failed */
    int execute(CommandSpec spec) {
        byte[] secret = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(secret);
        String hex = HexFormat.of().formatHex(secret);
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (out.equals("-")) {
            stdout.println(hex);
            stdout.flush();
            return 0;
        }
        Path file = Path.of(out).toAbsolutePath();
        try {
            write(file, hex + "\n", force);
        } catch (FileAlreadyExistsException e) {
            err.println("dsa: " + file + " exists; not replaced (pass --force to replace it)");
            err.flush();
            return DsaCli.EXIT_FAILED;
        } catch (IOException e) {
            err.println("dsa: cannot write the secret to " + file + ": " + e);
            err.flush();
            return DsaCli.EXIT_FAILED;
        }
        stdout.println("wrote a new cluster secret to " + file + " (mode 600); give it to every host and launcher with"
                + " --secret-file " + file);
        stdout.flush();
        return 0;
    }

    // A private temporary file in the same directory, synced, then linked (refuses an existing file) or renamed over it.
    private static void write(Path file, String text, boolean replace) throws IOException {
        Path dir = file.getParent();
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        Path tmp = posix ? Files.createTempFile(dir, ".dsa-secret-", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                : Files.createTempFile(dir, ".dsa-secret-", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
                ch.force(true);
            }
            if (replace) {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                try {
                    Files.createLink(file, tmp);   // atomic, and fails if the file exists
                } catch (UnsupportedOperationException e) {
                    if (Files.exists(file)) throw new FileAlreadyExistsException(file.toString());
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
