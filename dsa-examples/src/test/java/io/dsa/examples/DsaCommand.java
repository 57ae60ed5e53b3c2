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

    /** @return the live descendants of this JVM that run a DSA node */
    static List<ProcessHandle> liveNodeProcesses() {
        return ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().map(c -> c.contains(DsaCli.class.getName())).orElse(true))
                .toList();
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
