package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets as an operator expects: {@code dsa keygen} (and {@code dsa secret new}) writes a private
 * strong secret and keeps an existing file; a secret file that group or others can read is refused
 * unless {@code --allow-insecure-secret} (warned); weak secrets are refused; a missing secret
 * names both ways to give one. Through {@code execute()}, checking output and exit codes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SecretsTest {
    /** A host that nothing listens on: commands that get past the secret fail to connect (exit 1). */
    private static final String NOWHERE = "127.0.0.1:1";

    @TempDir
    Path dir;

    private Path keygen(String name) {
        Path file = dir.resolve(name);
        Cli cli = Cli.execute("keygen", "--out", file.toString());
        assertEquals(0, cli.exitCode(), cli.toString());
        return file;
    }

    private static String mode(Path file) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }

    @Test
    void keygenWritesThirtyTwoRandomBytesAsHexReadableOnlyByItsOwner() throws Exception {
        Path file = dir.resolve("secret");
        Cli cli = Cli.execute("keygen", "--out", file.toString());
        assertEquals(0, cli.exitCode(), cli.toString());
        assertEquals("wrote a new cluster secret to " + file.toAbsolutePath() + " (mode 600); give it to every host and launcher"
                + " with --secret-file " + file.toAbsolutePath(), cli.out().strip());
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        assertTrue(text.matches("[0-9a-f]{64}\n"), text);
        assertEquals("rw-------", mode(file));
        assertNotEquals(text, Files.readString(keygen("other"), StandardCharsets.US_ASCII));
        assertArrayEquals(text.strip().getBytes(StandardCharsets.US_ASCII), Secrets.fromFile(file, false, w -> { }));
        try (var left = Files.list(dir)) {
            assertEquals(List.of("other", "secret"), left.map(p -> p.getFileName().toString()).sorted().toList(), "no temporary files");
        }
    }

    @Test
    void keygenKeepsAnExistingFileUnlessForced() throws Exception {
        Path file = keygen("secret");
        String before = Files.readString(file);
        Cli again = Cli.execute("keygen", "--out", file.toString());
        assertEquals(DsaCli.EXIT_FAILED, again.exitCode(), again.toString());
        assertEquals("dsa: " + file.toAbsolutePath() + " exists; not replaced (pass --force to replace it)", again.err().strip());
        assertEquals(before, Files.readString(file));
        Cli forced = Cli.execute("keygen", "--out", file.toString(), "--force");
        assertEquals(0, forced.exitCode(), forced.toString());
        assertNotEquals(before, Files.readString(file));
        assertEquals("rw-------", mode(file));
    }

    @Test
    void secretNewIsKeygen() throws Exception {
        Path file = dir.resolve("via-secret-new");
        Cli cli = Cli.execute("secret", "new", "--out", file.toString());
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(Files.readString(file).matches("[0-9a-f]{64}\n"));
        assertEquals("rw-------", mode(file));
        Cli printed = Cli.execute("secret", "new", "--out", "-");
        assertEquals(0, printed.exitCode(), printed.toString());
        assertTrue(printed.out().matches("[0-9a-f]{64}\\R"), printed.out());
        Cli bare = Cli.execute("secret");
        assertEquals(DsaCli.EXIT_USAGE, bare.exitCode(), bare.toString());
        assertTrue(bare.err().contains("new"), bare.toString());
    }

    @Test
    void aSecretFileThatOthersCanReadIsRefusedNamingItsModeAndTheFix() throws Exception {
        Path file = keygen("shared");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Cli cli = Cli.execute("status", "--hosts", NOWHERE, "--secret-file", file.toString());
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("secret file " + file + " has mode 644 (rw-r--r--): group or others can read or write it;"
                + " run 'chmod 600 " + file + "', or pass --allow-insecure-secret to use it anyway"), cli.toString());
        for (String command : List.of("host", "migrate", "read", "run")) {
            List<String> args = switch (command) {
                case "host" -> List.of("host", "--secret-file", file.toString());
                case "migrate" -> List.of("migrate", "--vm", "v", "--node", "1", "--hosts", NOWHERE, "--to", NOWHERE,
                        "--secret-file", file.toString());
                case "read" -> List.of("read", "--vm", "v", "--node", "1", "--hosts", NOWHERE, "--array", "A",
                        "--secret-file", file.toString());
                default -> List.of("run", "--hosts", NOWHERE, "--secret-file", file.toString(), "idle-test");
            };
            Cli refused = Cli.execute(args.toArray(new String[0]));
            assertEquals(DsaCli.EXIT_USAGE, refused.exitCode(), command + ": " + refused);
            assertTrue(refused.err().contains("chmod 600 " + file), command + ": " + refused);
        }
    }

    @Test
    void allowInsecureSecretUsesTheFileWithOneWarning() throws Exception {
        Path file = keygen("shared");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-r--"));
        Cli cli = Cli.execute("status", "--hosts", NOWHERE, "--secret-file", file.toString(), "--allow-insecure-secret");
        assertEquals(DsaCli.EXIT_FAILED, cli.exitCode(), "it got past the secret and tried the host: " + cli);
        String warning = "warning: secret file " + file + " has mode 664 (rw-rw-r--): group or others can read or write it;"
                + " used because of --allow-insecure-secret";
        assertEquals(1, cli.err().lines().filter(warning::equals).count(), cli.toString());
        assertTrue(cli.out().contains("error: host " + NOWHERE), cli.toString());
    }

    @Test
    void weakSecretsAreRefused() throws Exception {
        Path same = Files.writeString(dir.resolve("same"), "aaaaaaaaaaaaaaaa\n");
        Path shortOne = Files.writeString(dir.resolve("short"), "0123456789\n");
        for (Path f : List.of(same, shortOne)) Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        Cli weak = Cli.execute("status", "--hosts", NOWHERE, "--secret-file", same.toString());
        assertEquals(DsaCli.EXIT_USAGE, weak.exitCode(), weak.toString());
        assertTrue(weak.err().contains("the cluster secret in secret file " + same + " is too weak: about 0 bits"
                + " (length x log2(distinct symbols)), at least 128 required; make one with 'dsa keygen'"), weak.toString());
        Cli tooShort = Cli.execute("status", "--hosts", NOWHERE, "--secret-file", shortOne.toString());
        assertEquals(DsaCli.EXIT_USAGE, tooShort.exitCode(), tooShort.toString());
        assertTrue(tooShort.err().contains("the cluster secret in secret file " + shortOne + " has 10 bytes, at least 16 required"),
                tooShort.toString());
        Secrets.SecretException env = assertThrows(Secrets.SecretException.class,
                () -> Secrets.fromEnvironment(name -> name.equals("DSA_SECRET") ? "aaaaaaaaaaaaaaaa" : null));
        assertTrue(env.getMessage().startsWith("the cluster secret in the environment variable DSA_SECRET is too weak"), env.getMessage());
    }

    @Test
    void theEstimateCountsLengthTimesLog2OfDistinctSymbolsCappedByTheAlphabet() {
        assertEquals(0, Secrets.estimatedBits("aaaaaaaaaaaaaaaa"));
        assertEquals(64, Secrets.estimatedBits("0123456789abcdef"), 1e-9);   // 16 hex digits: 4 bits each at most
        assertEquals(16, Secrets.estimatedBits("abababababababab"), 1e-9);
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        assertTrue(Secrets.estimatedBits(java.util.HexFormat.of().formatHex(random)) >= 128);
        assertTrue(Secrets.estimatedBits(Base64.getEncoder().encodeToString(random)) >= 128);
        assertTrue(Secrets.estimatedBits("correct horse battery staple") < 128, "a short phrase is refused");
    }

    @Test
    void withoutASecretTheMessageNamesBothWaysToGiveOne() {
        Secrets.SecretException e = assertThrows(Secrets.SecretException.class, () -> Secrets.fromEnvironment(name -> null));
        assertEquals("no cluster secret: give --secret-file FILE (mode 600) or set the environment variable DSA_SECRET;"
                + " make one with 'dsa keygen'", e.getMessage());
        assumeTrue(System.getenv("DSA_SECRET") == null, "DSA_SECRET is set in this environment");
        for (String command : List.of("status", "host")) {
            Cli cli = command.equals("host") ? Cli.execute("host") : Cli.execute("status", "--hosts", NOWHERE);
            assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
            assertTrue(cli.err().contains("--secret-file") && cli.err().contains("DSA_SECRET"), cli.toString());
        }
    }

    @Test
    void aSecretComesOnStdinAsOneLine() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String hex = java.util.HexFormat.of().formatHex(random);
        assertArrayEquals(hex.getBytes(StandardCharsets.US_ASCII),
                Secrets.fromStream(new ByteArrayInputStream((hex + "\nignored").getBytes(StandardCharsets.US_ASCII))));
        Secrets.SecretException empty = assertThrows(Secrets.SecretException.class,
                () -> Secrets.fromStream(new ByteArrayInputStream(new byte[0])));
        assertEquals("no cluster secret on stdin: the stream ended first", empty.getMessage());
        Cli both = Cli.execute("node", "--node", "0", "--nodes", "1", "--secret-stdin", "--secret-file", "x", "idle-test");
        assertEquals(DsaCli.EXIT_USAGE, both.exitCode(), both.toString());
        assertTrue(both.err().contains("--secret-stdin and --secret-file exclude each other"), both.toString());
    }

    @Test
    void hostHelpShowsKeygenAndNoSecretInTheEnvironment() {
        Cli help = Cli.execute("host", "--help");
        assertEquals(0, help.exitCode(), help.toString());
        assertFalse(help.out().contains("$(cat"), help.out());
        assertFalse(help.out().contains("DSA_SECRET="), help.out());
        assertTrue(help.out().contains("dsa keygen --out ~/.dsa-secret"), help.out());
        assertTrue(help.out().contains("--secret-file ~/.dsa-secret"), help.out());
        assertTrue(help.out().contains("--allow-insecure-secret"), help.out());
    }
}
