package io.dsa.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Where a {@link DsaConfig.Builder}'s cluster secret comes from: random bytes
 * ({@link DsaConfig.Builder#randomSecret}), a file ({@code secretFile}), the environment
 * ({@code secretFromEnvironment}). Read plainly; the CLI's checks of a secret file's mode and of a
 * secret's strength are {@code io.dsa.agent.cli.Secrets}'.
 */
final class SecretSources {
    private SecretSources() {}

    /** @return 32 random bytes */
    static byte[] random() {
        byte[] s = new byte[32];
        new SecureRandom().nextBytes(s);
        return s;
    }

    /** @return the file's text, stripped, as UTF-8 @throws IllegalArgumentException naming the file if it cannot be read */
    static byte[] fromFile(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read secret file " + file + ": " + e.getMessage(), e);
        }
    }

    /** @return the variable's value, stripped, as UTF-8 @throws IllegalArgumentException naming it if it is not set */
    static byte[] fromEnvironment(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("no cluster secret: the environment variable " + variable
                    + " is not set; give a secret file instead (--secret-file FILE, or secretFile(path))");
        }
        return value.strip().getBytes(StandardCharsets.UTF_8);
    }
}
