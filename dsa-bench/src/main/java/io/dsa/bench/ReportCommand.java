package io.dsa.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench report}: gathers each experiment's {@code NAME.md} from {@code --out} (in the
 * paper's figure order) into one {@code BENCHMARKS.md} with the machine it was written on.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Writes BENCHMARKS.md from the experiments' Markdown in --out (tables, target ratios, machine, commands).")
final class ReportCommand implements Callable<Integer> {
    /** The experiments, in the order of the paper's figures. */
    static final List<String> ORDER = List.of("startup", "miss", "stream", "write-cost", "barrier", "lu", "fft", "cg", "scopes", "checkpoint", "jmh");

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench-results", description = "Where the experiments wrote (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--file", paramLabel = "FILE", defaultValue = "BENCHMARKS.md", description = "The report to write (default: ${DEFAULT-VALUE}).")
    Path file;

    @Override
    public Integer call() throws IOException {
        StringBuilder sb = new StringBuilder("# DSA benchmarks\n\n");
        sb.append("Written by `").append(BenchCommand.typed(spec)).append("` from the experiments' outputs in `").append(out)
                .append("/` (CSV, PNG and Markdown per experiment). Each section names its own command and the machine and load ")
                .append("when it ran; timings on a shared machine are noisy, so compare ratios measured in the same run.\n\n");
        sb.append("- Report machine: ").append(BenchOut.machine()).append("\n\n");
        int found = 0;
        for (String name : ORDER) {
            Path md = out.resolve(name + ".md");
            if (!Files.isRegularFile(md)) {
                sb.append("## ").append(name).append("\n\nNot run (no `").append(md).append("`).\n\n");
                continue;
            }
            String text = Files.readString(md);
            if (text.startsWith("# ")) text = "#" + text;   // BarrierBench writes a top-level title
            sb.append(text.stripTrailing()).append("\n\n");
            Path png = out.resolve(name + ".png");
            if (Files.isRegularFile(png)) sb.append("![").append(name).append("](").append(png).append(")\n\n");
            found++;
        }
        Files.writeString(file, sb);
        spec.commandLine().getOut().println("wrote " + file + " (" + found + " of " + ORDER.size() + " experiments)");
        return found == 0 ? 1 : 0;
    }
}
