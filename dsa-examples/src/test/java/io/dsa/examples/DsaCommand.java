package io.dsa.examples;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** Runs the {@code dsa} command line in this JVM and captures its output and exit code. */
record DsaCommand(int exitCode, String out, String err) {
    static DsaCommand execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        picocli.CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new DsaCommand(code, out.toString(), err.toString());
    }

    /**
     * @return the live descendants of this JVM that run a DSA node: the Java processes it started
     *         (in these tests only {@code dsa run} starts any). By the executable, not the command line:
     *         the JDK reads only the first few KB of a process's command line, and with the test class
     *         path the node's main class lies beyond them (a fresh clone's longer paths hid one node of three).
     */
    static List<ProcessHandle> liveNodeProcesses() {
        return ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(true))
                .toList();
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
