package io.dsa.examples.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Modules depend one way (DESIGN.md, "Modules"): checked on the import statements and
 * fully-qualified names of every main source file. A violation names the file, the line and the
 * forbidden name.
 */
class ModuleDirectionArchTest {
    /** Netty lives in the agent's transport package only. */
    static final String NETTY_HOME = "dsa-agent/src/main/java/io/dsa/agent/transport/";
    /**
     * Modules outside the Netty rule: STYLE.md asks dsa-bench for a raw Netty round trip as the
     * baseline beside every transport figure, and "dsa-bench may use any" module or library.
     */
    static final Set<String> NETTY_EXEMPT_MODULES = Set.of("dsa-bench");

    static final List<String> COHERENCE_FORBIDDEN = List.of(
            "io.netty", "io.dsa.agent", "io.dsa.examples", "io.dsa.bench",
            "java.net", "java.nio.channels", "java.util.concurrent", "java.lang.Thread");
    static final List<String> AGENT_FORBIDDEN = List.of("io.dsa.examples", "io.dsa.bench");
    /** Packages of the modules above core: never core's own, even if a core file declared one. */
    static final List<String> ABOVE_CORE = List.of("io.dsa.coherence", "io.dsa.agent", "io.dsa.examples", "io.dsa.bench");

    /** The protocol never reads the clock or touches threads: time comes in as an argument. */
    static final Pattern COHERENCE_FORBIDDEN_CODE = Pattern.compile(
            "\\bSystem\\s*\\.\\s*(?:currentTimeMillis|nanoTime)\\b"
            + "|\\bThread\\b"
            + "|\\b(?:Instant|Clock|LocalDateTime|LocalDate|LocalTime|ZonedDateTime|OffsetDateTime)\\s*\\.\\s*(?:now|system\\w*)\\s*\\(");

    private static SourceTree tree;

    @BeforeAll
    static void findSources() {
        tree = SourceTree.find();
    }

    @Test
    void sourcesAreFound() {
        assertTrue(tree.modules.containsAll(List.of("dsa-core", "dsa-coherence", "dsa-agent", "dsa-examples")),
                "modules of " + tree.root + ": " + tree.modules);
        assertTrue(tree.mainSources("dsa-core").size() >= 10, "dsa-core sources under " + tree.root);
        assertFalse(tree.mainSources("dsa-coherence").isEmpty(), "dsa-coherence sources under " + tree.root);
        assertFalse(tree.mainSources("dsa-agent").isEmpty(), "dsa-agent sources under " + tree.root);
    }

    @Test
    void coreDependsOnNothingButTheJdk() {
        Set<String> corePackages = packagesOf(tree.mainSources("dsa-core"));
        assertViolations(coreViolations(tree.mainSources("dsa-core"), corePackages));
    }

    @Test
    void coherenceIsPureProtocolLogic() {
        assertViolations(coherenceViolations(tree.mainSources("dsa-coherence")));
    }

    @Test
    void agentDoesNotDependOnExamplesOrBenchmarks() {
        assertViolations(forbiddenReferences(tree.mainSources("dsa-agent"), AGENT_FORBIDDEN,
                "dsa-agent depends only on core and coherence"));
    }

    @Test
    void nettyOnlyInTheAgentTransport() {
        List<JavaSource> sources = new ArrayList<>();
        for (String module : tree.modules) {
            if (!NETTY_EXEMPT_MODULES.contains(module)) sources.addAll(tree.mainSources(module));
        }
        assertViolations(nettyViolations(sources));
    }

    // ---- the rules, on parsed sources so they can be tested on made-up files ---------------------

    static Set<String> packagesOf(List<JavaSource> sources) {
        Set<String> packages = new TreeSet<>();
        for (JavaSource s : sources) packages.add(s.packageName());
        return packages;
    }

    static List<String> coreViolations(List<JavaSource> sources, Set<String> corePackages) {
        List<String> violations = new ArrayList<>();
        for (JavaSource s : sources) {
            for (JavaSource.Reference r : s.references()) {
                boolean aboveCore = ABOVE_CORE.stream().anyMatch(r::isIn);
                if (!aboveCore && (r.isIn("java") || corePackages.contains(r.packageName()))) continue;
                violations.add(s.at(r.line) + r.describe() + " is forbidden: dsa-core may use only java.* and its own"
                        + " packages " + corePackages);
            }
        }
        return violations;
    }

    static List<String> coherenceViolations(List<JavaSource> sources) {
        List<String> violations = forbiddenReferences(sources, COHERENCE_FORBIDDEN,
                "dsa-coherence is pure protocol logic: no Netty, agent, sockets, channels or threads");
        for (JavaSource s : sources) {
            for (int i = 0; i < s.code.length; i++) {
                Matcher m = COHERENCE_FORBIDDEN_CODE.matcher(s.code[i]);
                while (m.find()) {
                    violations.add(s.at(i + 1) + "'" + m.group() + "' is forbidden: dsa-coherence never reads the"
                            + " clock or uses threads");
                }
            }
        }
        return violations;
    }

    static List<String> forbiddenReferences(List<JavaSource> sources, List<String> forbidden, String rule) {
        List<String> violations = new ArrayList<>();
        for (JavaSource s : sources) {
            for (JavaSource.Reference r : s.references()) {
                for (String prefix : forbidden) {
                    if (r.isIn(prefix)) {
                        violations.add(s.at(r.line) + r.describe() + " is forbidden (" + prefix + "): " + rule);
                        break;
                    }
                }
            }
        }
        return violations;
    }

    static List<String> nettyViolations(List<JavaSource> sources) {
        List<String> violations = new ArrayList<>();
        for (JavaSource s : sources) {
            if (s.path.startsWith(NETTY_HOME)) continue;
            for (JavaSource.Reference r : s.references()) {
                if (r.isIn("io.netty")) {
                    violations.add(s.at(r.line) + r.describe() + " is forbidden: Netty appears only under "
                            + NETTY_HOME);
                }
            }
        }
        return violations;
    }

    static void assertViolations(List<String> violations) {
        assertTrue(violations.isEmpty(), violations.size() + " architecture violation(s):\n  "
                + String.join("\n  ", violations));
    }

    // ---- the rules catch what they should (and only that) ------------------------------------

    private static JavaSource source(String module, String path, String text) {
        return JavaSource.parse(module, path, text);
    }

    @Test
    void ruleCatchesCoreImportOfAnotherModule() {
        JavaSource s = source("dsa-core", "dsa-core/src/main/java/io/dsa/Bad.java", String.join("\n",
                "package io.dsa;",
                "import java.util.List;",
                "import io.dsa.coherence.CoherenceEngine;",
                "import static io.dsa.ReduceOp.SUM;",
                "class Bad { org.slf4j.Logger log; io.dsa.agent.DsaAgent agent; io.dsa.ArraySpec ok; }"));
        List<String> v = coreViolations(List.of(s), Set.of("io.dsa"));
        assertEquals(3, v.size(), v.toString());
        // a core file that declares another module's package does not make that package core's
        JavaSource misplaced = source("dsa-core", "dsa-core/src/main/java/io/dsa/agent/X.java",
                "package io.dsa.agent;\nimport io.dsa.agent.DsaAgent;\n");
        assertEquals(1, coreViolations(List.of(misplaced), Set.of("io.dsa", "io.dsa.agent")).size());
        assertTrue(v.get(0).startsWith("dsa-core/src/main/java/io/dsa/Bad.java:3: import io.dsa.coherence.CoherenceEngine"),
                v.get(0));
        assertTrue(v.get(1).startsWith("dsa-core/src/main/java/io/dsa/Bad.java:5: reference to org.slf4j.Logger"), v.get(1));
        assertTrue(v.get(2).contains(":5: reference to io.dsa.agent.DsaAgent"), v.get(2));
    }

    @Test
    void ruleCatchesCoherenceThreadsSocketsAndClock() {
        JavaSource s = source("dsa-coherence", "dsa-coherence/src/main/java/io/dsa/coherence/Bad.java", String.join("\n",
                "package io.dsa.coherence;",
                "import java.util.concurrent.ConcurrentHashMap;",
                "import java.net.*;",
                "import io.netty.buffer.ByteBuf;",
                "class Bad {",
                "  java.nio.channels.SocketChannel ch;",
                "  long now() { return System.nanoTime() + System.currentTimeMillis(); }",
                "  void run() { new Thread(() -> {}).start(); java.time.Instant.now(); }",
                "  void fine(long nowNs) { int getLocalThreadCount = 0; java.util.List<String> l = null; }",
                "}"));
        List<String> v = coherenceViolations(List.of(s));
        String all = String.join("\n", v);
        assertTrue(all.contains("Bad.java:2: import java.util.concurrent.ConcurrentHashMap"), all);
        assertTrue(all.contains("Bad.java:3: import java.net.*"), all);
        assertTrue(all.contains("Bad.java:4: import io.netty.buffer.ByteBuf"), all);
        assertTrue(all.contains("Bad.java:6: reference to java.nio.channels.SocketChannel"), all);
        assertTrue(all.contains("Bad.java:7: 'System.nanoTime'"), all);
        assertTrue(all.contains("Bad.java:7: 'System.currentTimeMillis'"), all);
        assertTrue(all.contains("Bad.java:8: 'Thread'"), all);
        assertTrue(all.contains("Bad.java:8: 'Instant.now('"), all);
        assertFalse(all.contains("Bad.java:9:"), all);
        assertEquals(8, v.size(), all);
    }

    @Test
    void rulesIgnoreCommentsAndStrings() {
        JavaSource s = source("dsa-coherence", "dsa-coherence/src/main/java/io/dsa/coherence/Fine.java", String.join("\n",
                "package io.dsa.coherence;",
                "/** Thread-safe? No: never calls System.nanoTime(); see io.netty.buffer.ByteBuf. */",
                "// import java.util.concurrent.Executor;",
                "class Fine {",
                "  String s = \"io.netty.Channel Thread System.nanoTime() \\\" java.net.Socket\";",
                "  char q = '\"'; String t = \"\"\"",
                "      java.util.concurrent.Executor \"quoted\" Thread",
                "      \"\"\";",
                "  /* java.net.Socket",
                "     Thread */ int x;",
                "}"));
        assertViolations(coherenceViolations(List.of(s)));
        assertViolations(nettyViolations(List.of(s)));
    }

    @Test
    void ruleAllowsNettyOnlyInTransport() {
        String text = "package x;\nimport io.netty.channel.Channel;\nclass C { io.netty.buffer.ByteBuf b; }\n";
        JavaSource transport = source("dsa-agent", NETTY_HOME + "Codec.java", text);
        JavaSource wire = source("dsa-agent", "dsa-agent/src/main/java/io/dsa/agent/wire/Codec.java", text);
        assertViolations(nettyViolations(List.of(transport)));
        List<String> v = nettyViolations(List.of(wire));
        assertEquals(List.of(
                "dsa-agent/src/main/java/io/dsa/agent/wire/Codec.java:2: import io.netty.channel.Channel is forbidden:"
                        + " Netty appears only under " + NETTY_HOME,
                "dsa-agent/src/main/java/io/dsa/agent/wire/Codec.java:3: reference to io.netty.buffer.ByteBuf is"
                        + " forbidden: Netty appears only under " + NETTY_HOME), v);
    }

    @Test
    void ruleCatchesAgentUsingExamples() {
        JavaSource s = source("dsa-agent", "dsa-agent/src/main/java/io/dsa/agent/Bad.java",
                "package io.dsa.agent;\nimport io.dsa.examples.InnerProduct;\nimport io.dsa.examplesX.Fine;\n");
        List<String> v = forbiddenReferences(List.of(s), AGENT_FORBIDDEN, "rule");
        assertEquals(List.of("dsa-agent/src/main/java/io/dsa/agent/Bad.java:2: import io.dsa.examples.InnerProduct"
                + " is forbidden (io.dsa.examples): rule"), v);
    }
}
