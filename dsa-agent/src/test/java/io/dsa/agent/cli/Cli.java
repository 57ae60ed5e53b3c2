package io.dsa.agent.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs the {@code dsa} command line in this JVM, built as {@link DsaCli#main} builds it (only the
 * command the arguments name), and captures its output and exit code.
 */
record Cli(int exitCode, String out, String err) {
    static Cli execute(String... args) {
        return execute(new StringWriter(), new StringWriter(), args);
    }

    private static Cli execute(StringWriter out, StringWriter err, String... args) {
        picocli.CommandLine cli = DsaCli.commandLine(args);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    /**
     * Runs the command on a thread of its own; its output so far can be read while it runs (a
     * {@link StringWriter} is thread-safe), so a test can wait for a line the launcher prints.
     */
    static Running start(String... args) {
        StringWriter out = new StringWriter();
        return new Running(out, java.util.concurrent.CompletableFuture.supplyAsync(() -> execute(out, new StringWriter(), args)));
    }

    /** A command started by {@link #start}: {@code done} completes with its outcome. */
    record Running(StringWriter out, java.util.concurrent.CompletableFuture<Cli> done) {
        /** @return what the command printed to its standard output so far */
        String outSoFar() { return out.toString(); }
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
