package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa node} by hand, as a site launcher would use it: node 0 in a child process announces
 * its address, node 1 (in this JVM) joins it with the same secret file, and node 0 prints the verdict.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeCommandSystemTest {
    @TempDir
    Path dir;

    @Test
    void twoNodesStartedByHandFormAVmAndRunAProgram() throws Exception {
        Path secret = dir.resolve("secret");
        DsaCommand keygen = DsaCommand.execute("keygen", "--out", secret.toString());   // mode 600, as hosts require
        assertEquals(0, keygen.exitCode(), keygen.toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process node0 = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), DsaCli.class.getName(),
                "node", "--node", "0", "--nodes", "2", "--threads", "2", "--secret-file", secret.toString(),
                "inner-product", "256", "16")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(node0.getInputStream(), StandardCharsets.UTF_8))) {
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("node 0 (monitor) listening on 127.0.0.1:"), first);
            String address = first.substring(first.lastIndexOf(' ') + 1);

            DsaCommand node1 = DsaCommand.execute("node", "--node", "1", "--nodes", "2", "--threads", "2",
                    "--monitor", address, "--secret-file", secret.toString(), "inner-product", "256", "16");
            assertEquals(0, node1.exitCode(), node1.toString());
            assertEquals("", node1.out(), node1.toString());

            List<String> rest = out.lines().collect(Collectors.toList());
            assertTrue(node0.waitFor(60, TimeUnit.SECONDS), "node 0 exits");
            assertEquals(0, node0.exitValue(), rest.toString());
            assertTrue(rest.get(0).matches("node 0: inner product of 256 elements = [0-9.E-]+ \\(verified against sequential\\)"),
                    rest.toString());
            assertEquals("result: OK", rest.get(rest.size() - 1), rest.toString());
        } finally {
            node0.destroyForcibly().waitFor();
        }
    }
}
