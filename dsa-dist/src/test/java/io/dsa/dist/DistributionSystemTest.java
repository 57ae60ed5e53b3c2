package io.dsa.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The tarball as a person installs it: unpacked anywhere, {@code bin/dsa} runs with only a JDK. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistributionSystemTest {
    @TempDir
    Path dir;

    @Test
    void binDsaPrintsTheVersionAndRunsADemoInOneJvm() throws Exception {
        Dist.Result version = Dist.run(dir, Map.of(), 60, Dist.dsa(), "--version");
        assertEquals(0, version.code(), version.toString());
        assertTrue(version.out().startsWith("dsa " + Dist.VERSION + "\n"), version.toString());
        Dist.Result run = Dist.run(dir, Map.of(), 90, Dist.dsa(), "run", "--in-process", "--nodes", "2", "--threads", "1",
                "inner-product", "64", "8");
        assertEquals(0, run.code(), run.toString());
        assertTrue(run.out().contains("node 0: inner product of 64 elements = "), run.toString());
        assertTrue(run.out().endsWith("result: OK\n"), run.toString());
        assertEquals("", run.err(), "no log lines, no SLF4J complaints: " + run);
    }

    @Test
    void anOldJavaIsRefusedWithAClearMessage() throws Exception {
        Path fakeHome = dir.resolve("jdk11");
        Path java = fakeHome.resolve("bin/java");
        Files.createDirectories(java.getParent());
        Files.writeString(java, "#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        Dist.Result old = Dist.run(dir, Map.of("JAVA_HOME", fakeHome.toString()), 30, Dist.dsa(), "--version");
        assertEquals(1, old.code(), old.toString());
        assertEquals("dsa: Java 17 or newer is needed, but " + java + " is Java 11.0.2; install a JDK 17+ or set JAVA_HOME to one\n",
                old.err(), old.toString());
        Dist.Result none = Dist.run(dir, Map.of("JAVA_HOME", dir.resolve("nowhere").toString()), 30, Dist.dsa(), "--version");
        assertEquals(1, none.code(), none.toString());
        assertTrue(none.err().startsWith("dsa: Java 17 or newer is needed, and there is no '"), none.toString());
    }

    @Test
    void theTarballHoldsTheLibrariesExamplesDocsAndCompletion() throws Exception {
        Path home = Dist.home();
        for (String file : new String[] {"lib/dsa-" + Dist.VERSION + ".jar", "lib/dsa-agent-" + Dist.VERSION + ".jar",
            "lib/dsa-examples-" + Dist.VERSION + ".jar", "lib/slf4j-simple-2.0.17.jar", "README.md", "docs/deploy.md",
            "docs/hosts.md", "examples/src/main/java/io/dsa/examples/Tsp.java", "templates/dsa-program/pom.xml"}) {
            assertTrue(Files.isRegularFile(home.resolve(file)), file);
        }
        assertFalse(Files.exists(home.resolve("templates/dsa-program/target")), "no build output of the template");
        String completion = Files.readString(home.resolve("completion/dsa"));
        for (String word : new String[] {"migrate", "--classpath", "--wait-for-vm", "--verbose", "--launcher"}) {
            assertTrue(completion.contains(word), "completion knows " + word);
        }
        // sourcing it in bash defines the completion function without errors
        Dist.Result bash = Dist.run(dir, Map.of(), 30, "bash", "-c", "source " + home.resolve("completion/dsa") + " && complete -p dsa");
        assertEquals(0, bash.code(), bash.toString());
        assertTrue(bash.out().contains("dsa"), bash.toString());
    }

    @Test
    void theBomHasTheVersionOfTheBuild() throws Exception {
        String bom = Files.readString(Dist.ROOT.resolve("dsa-bom/pom.xml"));
        assertTrue(bom.contains("<artifactId>dsa-bom</artifactId>\n  <version>" + Dist.VERSION + "</version>"),
                "dsa-bom/pom.xml has the version of dsa-parent, " + Dist.VERSION);
    }

    @Test
    void clientCommandsPrintNoLogLinesUnlessVerbose() throws Exception {
        Dist.Result keygen = Dist.run(dir, Map.of(), 30, Dist.dsa(), "keygen", "--out", dir.resolve("secret").toString());
        assertEquals(0, keygen.code(), keygen.toString());
        String[] status = {Dist.dsa(), "status", "--hosts", "127.0.0.1:1", "--secret-file", dir.resolve("secret").toString()};
        Dist.Result quiet = Dist.run(dir, Map.of(), 30, status);
        assertEquals(1, quiet.code(), quiet.toString());
        assertTrue(quiet.out().contains("error: host 127.0.0.1:1: cannot connect to 127.0.0.1:1"), quiet.toString());
        assertEquals("", quiet.err(), "no log lines: " + quiet);
        String[] verbose = java.util.Arrays.copyOf(status, status.length + 1);
        verbose[status.length] = "-v";
        Dist.Result loud = Dist.run(dir, Map.of(), 30, verbose);
        assertEquals(1, loud.code(), loud.toString());
        assertTrue(loud.err().contains(" INFO "), "-v logs at INFO: " + loud);
    }

    /** Against a live host, each command that acts on a node of a VM it does not know: one line on stdout, exit 1, nothing on stderr. */
    @Test
    void nodeCommandsOnAnUnknownVmPrintOneLineAndNoLogLines() throws Exception {
        String secret = dir.resolve("secret").toString();
        assertEquals(0, Dist.run(dir, Map.of(), 30, Dist.dsa(), "keygen", "--out", secret).code());
        Path log = dir.resolve("host.log");
        Process host = Dist.start(dir, Map.of(), log, Dist.dsa(), "host", "--bind", "127.0.0.1", "--port", "0", "--secret-file", secret);
        try {
            String line = Dist.awaitLine(log, "host listening on ", 60);
            String address = line.substring(line.indexOf("host listening on ") + "host listening on ".length()).strip();
            String unknown = "vm 'never' is unknown to [" + address + "] (is it running? hosts remember a finished vm for 10 minutes)";
            Map<String, String[]> commands = Map.of(
                    "migration failed: ", new String[] {"migrate", "--vm", "never", "--node", "1", "--to", address},
                    "cloning failed: ", new String[] {"clone", "--vm", "never", "--node", "1", "--to", address},
                    "read failed: ", new String[] {"read", "--vm", "never", "--node", "1", "--array", "a"});
            for (Map.Entry<String, String[]> c : commands.entrySet()) {
                List<String> command = new ArrayList<>(List.of(Dist.dsa()));
                command.addAll(List.of(c.getValue()));
                command.addAll(List.of("--hosts", address, "--secret-file", secret));
                Dist.Result r = Dist.run(dir, Map.of(), 30, command.toArray(String[]::new));
                assertEquals(1, r.code(), r.toString());
                assertEquals(c.getKey() + unknown + "\n", r.out(), r.toString());
                assertEquals("", r.err(), "no log lines: " + r);
            }
        } finally {
            Dist.end(host);
        }
    }
}
