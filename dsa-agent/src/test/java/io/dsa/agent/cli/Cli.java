package io.dsa.agent.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code dsa} command line in this JVM and captures its output and exit code. */
record Cli(int exitCode, String out, String err) {
    static Cli execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        picocli.CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
