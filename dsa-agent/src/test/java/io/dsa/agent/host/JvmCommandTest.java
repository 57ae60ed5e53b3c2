package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JVM options a child JVM gets from {@code dsa.childJvmOptions}, and what is refused there. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class JvmCommandTest {
    @Test
    void optionsAreSplitOnWhiteSpaceInOrder() {
        assertEquals(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dx=y", "-Xss512k"),
                JvmCommand.parseJvmOptions(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, "  -XX:TieredStopAtLevel=1 -XX:+UseSerialGC\t-Dx=y \n -Xss512k "));
        assertEquals(List.of(), JvmCommand.parseJvmOptions(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, ""));
        assertEquals(List.of(), JvmCommand.parseJvmOptions(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, "   "));
    }

    @Test
    void anythingButAnXOrDOptionIsRefusedNamingIt() {
        for (String bad : List.of("-cp", "-jar", "Main", "-X", "--add-opens=java.base/java.lang=ALL-UNNAMED")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> JvmCommand.parseJvmOptions(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, "-XX:+UseSerialGC " + bad));
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("-X..., -XX:... or -D..."), e.getMessage());
        }
    }

    @Test
    void thePropertyIsPassedOnToChildren() {
        assertTrue(JvmCommand.INHERITED_PROPERTIES.contains(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY));
        String before = System.getProperty(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY);
        try {
            System.setProperty(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, "-XX:+UseSerialGC -Dx=1");
            assertEquals(List.of("-XX:+UseSerialGC", "-Dx=1"), JvmCommand.childJvmOptions());
            assertTrue(JvmCommand.inheritedProperties().contains("-D" + JvmCommand.CHILD_JVM_OPTIONS_PROPERTY + "=-XX:+UseSerialGC -Dx=1"),
                    JvmCommand.inheritedProperties().toString());
        } finally {
            if (before == null) System.clearProperty(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY);
            else System.setProperty(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY, before);
        }
    }
}
