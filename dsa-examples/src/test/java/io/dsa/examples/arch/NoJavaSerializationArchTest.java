package io.dsa.examples.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No Java serialization anywhere (DESIGN.md, "Wire and transport"): no main source file mentions
 * the object streams or implements Serializable/Externalizable explicitly. Comments may discuss
 * them; code and string literals (which could load a class by name) may not. Classes that are
 * Serializable only by inheritance, such as DsaException via RuntimeException, are fine.
 */
class NoJavaSerializationArchTest {
    static final Pattern SERIALIZATION = Pattern.compile(
            "\\b(?:ObjectInputStream|ObjectOutputStream|ObjectInput|ObjectOutput|Serializable|Externalizable)\\b");

    @Test
    void noMainSourceUsesJavaSerialization() {
        List<JavaSource> sources = SourceTree.find().allMainSources();
        assertTrue(sources.size() >= 20, "main sources found: " + sources.size());
        List<String> violations = violations(sources);
        assertTrue(violations.isEmpty(), violations.size() + " use(s) of Java serialization:\n  "
                + String.join("\n  ", violations));
    }

    static List<String> violations(List<JavaSource> sources) {
        List<String> out = new ArrayList<>();
        for (JavaSource s : sources) {
            for (int i = 0; i < s.codeAndStrings.length; i++) {
                Matcher m = SERIALIZATION.matcher(s.codeAndStrings[i]);
                while (m.find()) {
                    out.add(s.at(i + 1) + m.group() + " is forbidden: no Java serialization, use an explicit binary"
                            + " format");
                }
            }
        }
        return out;
    }

    @Test
    void checkCatchesSerializationInCodeAndStringsButNotComments() {
        JavaSource s = JavaSource.parse("dsa-agent", "dsa-agent/src/main/java/io/dsa/agent/Bad.java", String.join("\n",
                "package io.dsa.agent;",
                "import java.io.ObjectInputStream;",
                "/** Never an ObjectOutputStream or Serializable here. */",
                "final class Bad implements java.io.Serializable {",
                "  Object o = Class.forName(\"java.io.ObjectOutputStream\");",
                "  interface Ext extends java.io.Externalizable {}",
                "  private static final long serialVersionUID = 1L; // fine: Serializable by inheritance",
                "}"));
        List<String> v = violations(List.of(s));
        assertEquals(List.of(
                "dsa-agent/src/main/java/io/dsa/agent/Bad.java:2: ObjectInputStream is forbidden: no Java serialization,"
                        + " use an explicit binary format",
                "dsa-agent/src/main/java/io/dsa/agent/Bad.java:4: Serializable is forbidden: no Java serialization,"
                        + " use an explicit binary format",
                "dsa-agent/src/main/java/io/dsa/agent/Bad.java:5: ObjectOutputStream is forbidden: no Java serialization,"
                        + " use an explicit binary format",
                "dsa-agent/src/main/java/io/dsa/agent/Bad.java:6: Externalizable is forbidden: no Java serialization,"
                        + " use an explicit binary format"), v);
    }
}
