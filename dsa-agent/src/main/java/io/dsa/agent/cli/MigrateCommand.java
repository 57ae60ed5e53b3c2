package io.dsa.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa migrate}: moves node K of a running VM to another host while its job runs. */
@Command(name = "migrate",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Moves node K of a running VM to another 'dsa host' while its job runs: the node stops at the",
            "next global barrier, its partitions, directory entries, shared variables and barrier state move, every",
            "node learns its new address, and its workers resume there. The job must be resumable.",
            "Prints the pause (safe point to resumed) and the bytes moved."},
        footer = {"", "Example:",
            "  dsa migrate --vm jacobi --node 2 --hosts 10.0.0.2:7000,10.0.0.3:7000 --to 10.0.0.4:7000"})
final class MigrateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TransferOptions options;

    @Override
    public Integer call() throws InterruptedException { return options.execute(spec, false); }
}
