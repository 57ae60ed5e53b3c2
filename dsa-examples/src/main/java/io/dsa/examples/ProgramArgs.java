package io.dsa.examples;

import io.dsa.DsaException;
import java.util.List;

/** Positional integer arguments of an example program, with defaults and ranges. */
final class ProgramArgs {
    private ProgramArgs() {}

    /**
     * @return {@code args[position]} as an int, or {@code defaultValue} when absent
     * @throws DsaException naming the argument, its value and the valid range
     */
    static int intArg(String program, List<String> args, int position, String name, int defaultValue, int min, int max) {
        if (args.size() <= position) return defaultValue;
        String text = args.get(position);
        int value;
        try {
            value = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new DsaException(program + ": " + name + " '" + text + "' is not an integer");
        }
        if (value < min || value > max) {
            throw new DsaException(program + ": " + name + " " + value + " out of range [" + min + ", " + max + "]");
        }
        return value;
    }

    /** @throws DsaException if more than {@code max} arguments were given */
    static void atMost(String program, List<String> args, int max, String usage) {
        if (args.size() > max) {
            throw new DsaException(program + ": " + args.size() + " arguments given, at most " + max + " expected: " + usage);
        }
    }
}
