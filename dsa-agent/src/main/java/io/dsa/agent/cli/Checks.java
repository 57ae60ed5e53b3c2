package io.dsa.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Option validation that names the option, its value and the valid range; exit code 2. */
final class Checks {
    private Checks() {}

    /** @throws CommandLine.ParameterException if {@code value} is outside {@code [min, max]} */
    static void range(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    option + " " + value + " out of range [" + min + ", " + max + "]");
        }
    }

    /** @return a usage error (exit code 2) with {@code message} */
    static CommandLine.ParameterException usage(CommandSpec spec, String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
