package io.dsa.examples;

import java.util.List;

/**
 * Positional integer arguments of an example program, with defaults and ranges. The messages name
 * the program, the argument, its value and the valid range; {@code dsa run} prints them as usage
 * errors before any node starts ({@link io.dsa.DsaProgram#validate}).
 */
final class ProgramArgs {
    private ProgramArgs() {}

    /**
     * @return {@code args[position]} as an int, or {@code defaultValue} when absent
     * @throws IllegalArgumentException naming the argument, its value and the valid range
     */
    static int intArg(String program, List<String> args, int position, String name, int defaultValue, int min, int max) {
        if (args.size() <= position) return defaultValue;
        String text = args.get(position);
        int value;
        try {
            value = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(program + ": " + name + " '" + text + "' is not an integer");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(program + ": " + name + " " + value + " out of range [" + min + ", " + max + "]");
        }
        return value;
    }

    /** @throws IllegalArgumentException if more than {@code max} arguments were given */
    static void atMost(String program, List<String> args, int max, String usage) {
        if (args.size() > max) {
            throw new IllegalArgumentException(program + ": " + args.size() + " arguments given, at most " + max + " expected: " + usage);
        }
    }
}
