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

    /**
     * @return the bytes of a size such as {@code 512m}, {@code 2g}, {@code 65536k} or
     *         {@code 1073741824} (suffixes k, m, g, t are powers of 1024, in either case)
     * @throws CommandLine.ParameterException naming the option, its value and the valid range
     */
    static long bytes(CommandSpec spec, String option, String text, long min, long max) {
        String range = " out of range [" + io.dsa.agent.host.HostConfig.formatBytes(min) + ", "
                + io.dsa.agent.host.HostConfig.formatBytes(max) + "]";
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        int shift = t.isEmpty() ? -1 : switch (t.charAt(t.length() - 1)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        long value;
        try {
            long number = Long.parseLong(shift > 0 ? t.substring(0, t.length() - 1) : t);
            if (number < 0 || number > (Long.MAX_VALUE >> Math.max(shift, 0))) {
                throw new CommandLine.ParameterException(spec.commandLine(), option + " " + text + range);
            }
            value = number << Math.max(shift, 0);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " '" + text
                    + "' is not a size; use bytes or a number with k or m or g or t, e.g. 512m");
        }
        if (value < min || value > max) throw new CommandLine.ParameterException(spec.commandLine(), option + " " + text + range);
        return value;
    }

    /** @return a usage error (exit code 2) with {@code message} */
    static CommandLine.ParameterException usage(CommandSpec spec, String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
