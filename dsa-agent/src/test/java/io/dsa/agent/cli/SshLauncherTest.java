package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.HostPort;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The script an ssh session of {@code dsa run --launcher ssh} runs, run here by {@code sh} with a
 * fake {@code dsa}: the secret lands in a private file, the daemon starts with it, and closing
 * stdin stops the daemon and deletes the secret.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SshLauncherTest {
    @Test
    void theSecretIsPrivateOnTheHostAndGoesWithTheDaemon(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("dsa");
        // prints its arguments, the secret file's mode and content, an address, then waits to be stopped
        Files.writeString(fake, "#!/bin/sh\necho \"args: $*\"\nstat -c 'mode %a' \"$7\"\necho \"secret: $(cat \"$7\")\"\n"
                + "echo \"$7\" > " + dir.resolve("where") + "\necho 'host listening on 127.0.0.9:7000'\nexec sleep 60\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        String script = SshLauncher.remoteScript(fake.toString(), new HostPort("127.0.0.9", 0), List.of("--transport-security", "MAC"));
        ProcessBuilder sh = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
        sh.environment().put("TMPDIR", dir.toString());
        Process p = sh.start();
        List<String> lines = new ArrayList<>();
        try (OutputStream stdin = p.getOutputStream();
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            stdin.write("s3cr3t-with spaces\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
                if (line.startsWith("host listening on")) break;
            }
            Path secretFile = Path.of(Files.readString(dir.resolve("where")).strip());
            assertTrue(Files.exists(secretFile), lines.toString());
            assertEquals(List.of("args: host --bind 127.0.0.9 --port 0 --secret-file " + secretFile + " --transport-security MAC",
                    "mode 600", "secret: s3cr3t-with spaces", "host listening on 127.0.0.9:7000"), lines);
            stdin.close();   // the job is over
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the session ends when its stdin closes");
            assertFalse(Files.exists(secretFile.getParent()), "the secret's directory is deleted");
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void wordsAreQuotedForTheRemoteShell() {
        assertEquals("/opt/dsa/bin/dsa", SshLauncher.quote("/opt/dsa/bin/dsa"));
        assertEquals("'/opt/my dsa/bin/dsa'", SshLauncher.quote("/opt/my dsa/bin/dsa"));
        assertEquals("'it'\\''s'", SshLauncher.quote("it's"));
        assertEquals("'$(rm -rf /)'", SshLauncher.quote("$(rm -rf /)"));
    }
}
