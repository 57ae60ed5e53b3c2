package io.dsa.bench;

import io.dsa.agent.cli.DsaCliExtension;
import picocli.CommandLine;

/** Adds {@code dsa bench} (see {@link BenchCommand}) to the {@code dsa} command line. */
public final class BenchExtension implements DsaCliExtension {
    /** Creates the extension; the ServiceLoader calls it. */
    public BenchExtension() {}

    @Override
    public void register(CommandLine dsa) {
        dsa.addSubcommand(new CommandLine(new BenchCommand()));
    }
}
