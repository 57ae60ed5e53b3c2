package io.dsa.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A program written outside the repository, compiled with javac against the distribution's
 * {@code lib/}, run the three ways the README shows: {@code dsa run --classpath} (on this
 * machine and on {@code dsa host} daemons), a Maven project made from the template, and
 * {@code DsaCluster.local} from its own {@code main}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class OwnProgramSystemTest {
    private static final String PROGRAM = """
            package my;

            import io.dsa.DsaNode;
            import io.dsa.DsaProgram;
            import io.dsa.DsaWorker;
            import io.dsa.ProgramName;
            import io.dsa.ReduceOp;
            import io.dsa.SharedLongArray;
            import java.util.List;

            @ProgramName("squares")
            public final class Squares implements DsaProgram {
                private int n;
                private SharedLongArray a;

                @Override public void validate(List<String> args, int nodes, int threads) { n = Args.count(args); }

                @Override public void setup(DsaNode node) {
                    n = Args.count(node.args());
                    a = node.createSharedLongArray("squares", n, 8);
                }

                @Override public void work(DsaWorker w) {
                    int from = a.layout().startingIndexAtThread(w.threadId());
                    int to = a.layout().maxIndexAtThread(w.threadId());
                    long partial = 0;
                    for (int i = from; i < to; i++) { a.write(i, (long) i * i); partial += a.read(i); }
                    long sum = (long) w.allReduce(partial, ReduceOp.SUM);
                    if (w.threadId() == 0) w.node().report("sum of squares below " + n + " = " + sum);
                }
            }
            """;
    // in a directory of its own, so that a class path of two entries is needed
    private static final String ARGS = """
            package my;

            import java.util.List;

            final class Args {
                static int count(List<String> args) {
                    int n = args.isEmpty() ? 100 : Integer.parseInt(args.get(0));
                    if (n < 1 || n > 100000) throw new IllegalArgumentException("squares: n " + n + " out of range [1, 100000]");
                    return n;
                }
            }
            """;
    private static final String MAIN = """
            package my;

            import io.dsa.agent.DsaCluster;
            import io.dsa.agent.DsaConfig;

            public final class Main {
                public static void main(String[] args) {
                    try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(2).build())) {
                        cluster.run(new Squares(), args).lines().forEach(System.out::println);
                    }
                }
            }
            """;
    /** sum of i*i for i in [0, 100) */
    private static final String EXPECTED = "node 0: sum of squares below 100 = 328350";

    private static Path work;
    private static Path programJar;
    private static Path argsClasses;
    private static final List<Process> hosts = new ArrayList<>();

    @BeforeAll
    static void compileOutsideTheRepository() throws Exception {
        work = Files.createTempDirectory("dsa-own-program");
        Path src = work.resolve("src/my");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Squares.java"), PROGRAM);
        Files.writeString(src.resolve("Args.java"), ARGS);
        Files.writeString(src.resolve("Main.java"), MAIN);
        Path classes = work.resolve("classes");
        String libs = String.join(java.io.File.pathSeparator, jars(Dist.home().resolve("lib")));
        int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), "-cp", libs,
                src.resolve("Squares.java").toString(), src.resolve("Args.java").toString(), src.resolve("Main.java").toString());
        assertEquals(0, javac, "javac");
        // the program and its registration in a jar; its helper class in a directory
        programJar = work.resolve("squares.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(programJar))) {
            for (String name : List.of("my/Squares.class", "my/Main.class")) {
                jar.putNextEntry(new JarEntry(name));
                Files.copy(classes.resolve(name), jar);
            }
            jar.putNextEntry(new JarEntry("META-INF/services/io.dsa.DsaProgram"));
            jar.write("my.Squares\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        argsClasses = work.resolve("args");
        Files.createDirectories(argsClasses.resolve("my"));
        Files.copy(classes.resolve("my/Args.class"), argsClasses.resolve("my/Args.class"));
    }

    @AfterAll
    static void endHosts() throws InterruptedException {
        for (Process p : hosts) Dist.end(p);
        if (work != null) Dist.deleteTree(work);
    }

    private static String classPath() { return programJar + java.io.File.pathSeparator + argsClasses; }

    @Test
    void withClassPathOnThisMachine() throws Exception {
        Dist.Result run = Dist.run(work, Map.of(), 120, Dist.dsa(), "run", "--nodes", "2", "--threads", "1",
                "--classpath", classPath(), "squares");
        assertEquals(0, run.code(), run.toString());
        assertTrue(run.out().contains(EXPECTED), run.toString());
        // DSA_CLASSPATH instead of the option; a bad argument is refused before anything starts
        Dist.Result bad = Dist.run(work, Map.of("DSA_CLASSPATH", classPath()), 60, Dist.dsa(), "run", "my.Squares", "0");
        assertEquals(2, bad.code(), bad.toString());
        assertEquals("dsa: squares: n 0 out of range [1, 100000]", bad.err().lines().findFirst().orElse(""), bad.toString());
    }

    @Test
    void withClassPathOnHostsWhichGetItShipped() throws Exception {
        Path secret = work.resolve("secret");
        Dist.Result keygen = Dist.run(work, Map.of(), 30, Dist.dsa(), "keygen", "--out", secret.toString());
        assertEquals(0, keygen.code(), keygen.toString());
        List<String> addresses = new ArrayList<>();
        for (int h = 0; h < 2; h++) {
            Path log = work.resolve("host-" + h + ".log");
            // the hosts run from the distribution alone: the program reaches them only through the launcher
            hosts.add(Dist.start(work, Map.of(), log, Dist.dsa(), "host", "--bind", "127.0.0.1", "--port", "0",
                    "--secret-file", secret.toString()));
            String line = Dist.awaitLine(log, "host listening on ", 60);
            addresses.add(line.substring(line.indexOf("host listening on ") + "host listening on ".length()).strip());
        }
        Dist.Result run = Dist.run(work, Map.of(), 120, Dist.dsa(), "run", "--hosts", String.join(",", addresses),
                "--threads", "2", "--secret-file", secret.toString(), "--classpath", classPath(), "squares");
        assertEquals(0, run.code(), run.toString());
        assertTrue(run.out().contains(EXPECTED), run.toString());
    }

    @Test
    void fromItsOwnMainWithDsaClusterLocal() throws Exception {
        List<String> cp = new ArrayList<>(jars(Dist.home().resolve("lib")));
        cp.add(classPath());
        Dist.Result run = Dist.run(work, Map.of(), 90, javaExecutable(), "-cp", String.join(java.io.File.pathSeparator, cp),
                "my.Main");
        assertEquals(0, run.code(), run.toString());
        assertEquals(EXPECTED + "\n", run.out(), run.toString());
        assertFalse(run.err().contains("SLF4J"), "io.dsa:dsa brings a logging backend: " + run);
    }

    @Test
    void fromTheTemplateBuiltWithMaven() throws Exception {
        Path project = work.resolve("my-dsa-program");
        copyTree(Dist.home().resolve("templates/dsa-program"), project);
        Path repository = MavenRepository.withThisBuild(work.resolve("m2"));
        Dist.Result build = Dist.run(project, Map.of("MAVEN_OPTS", "-Djansi.noreset=true"), 180, "mvn", "-B", "-o", "-q",
                "-Dstyle.color=never", "-Dmaven.repo.local=" + repository, "package");
        assertEquals(0, build.code(), build.toString());
        Path jar = project.resolve("target/my-dsa-program-1.0-SNAPSHOT.jar");
        assertTrue(Files.isRegularFile(jar), build.toString());
        Dist.Result run = Dist.run(work, Map.of(), 120, Dist.dsa(), "run", "--nodes", "2", "--threads", "2", "--classpath",
                jar.toString(), "my-program", "1000");
        assertEquals(0, run.code(), run.toString());
        assertTrue(run.out().contains("node 0: sum of 1..1000 = 500500 (verified)"), run.toString());
    }

    private static List<String> jars(Path lib) throws IOException {
        try (Stream<Path> files = Files.list(lib)) {
            return files.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
        }
    }

    private static String javaExecutable() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
    }
}
