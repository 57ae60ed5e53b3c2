package io.dsa.agent.host;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM options for the JVMs a test starts itself ({@code dsa host} and {@code dsa node} processes):
 * the options of {@link JvmCommand#CHILD_JVM_OPTIONS_PROPERTY} as the build sets them for the tests
 * (a faster start), and the property itself, so that a host passes them on to its job JVMs as
 * {@code dsa run} does to its node processes.
 */
public final class TestJvms {
    private TestJvms() {}

    /** @return the options, none when the property is not set */
    public static List<String> options() {
        List<String> options = new ArrayList<>(JvmCommand.childJvmOptions());
        String value = System.getProperty(JvmCommand.CHILD_JVM_OPTIONS_PROPERTY);
        if (value != null) options.add("-D" + JvmCommand.CHILD_JVM_OPTIONS_PROPERTY + "=" + value);
        return options;
    }
}
