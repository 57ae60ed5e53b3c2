package io.dsa.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** Output helpers shared by the macro experiments: statistics, machine line, CSV, PNG plot, Markdown. */
final class BenchOut {
    private BenchOut() {}

    /** @return the median of {@code values} (sorts a copy) */
    static double median(double[] values) { return percentile(values, 50); }

    /** @return the p-th percentile (nearest rank) of {@code values} (sorts a copy) */
    static double percentile(double[] values, int p) {
        if (values.length == 0) throw new IllegalArgumentException("no values for percentile " + p);
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return BarrierBench.percentile(sorted, p);
    }

    /** @return nproc, CPU model, JDK and the 1-minute load average, for the Markdown header */
    static String machine() {
        return String.format(Locale.ROOT, "%d CPUs (nproc), %s; JDK %s %s; load average %.1f",
                Runtime.getRuntime().availableProcessors(), BarrierBench.cpuModel(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), BarrierBench.loadAverage());
    }

    static String f(double v) { return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.2f", v); }

    static void csv(Path out, String name, String header, List<String> lines) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve(name + ".csv"), header + "\n" + String.join("\n", lines) + "\n");
    }

    /** Writes {@code name.png}: one line per series, each series {xs, ys} (NaN points dropped). */
    static void plot(Path out, String name, String title, String xTitle, String yTitle, boolean logY,
                     Map<String, double[][]> series) throws IOException {
        plot(out, name, title, xTitle, yTitle, false, logY, series);
    }

    /** {@link #plot(Path, String, String, String, String, boolean, Map)} with a logarithmic x axis if {@code logX}. */
    static void plot(Path out, String name, String title, String xTitle, String yTitle, boolean logX, boolean logY,
                     Map<String, double[][]> series) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(600).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisLogarithmic(logY);
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            double[] xs = e.getValue()[0], ys = e.getValue()[1];
            int n = 0;
            for (double y : ys) if (!Double.isNaN(y) && (!logY || y > 0)) n++;
            if (n == 0) continue;
            double[] x2 = new double[n], y2 = new double[n];
            for (int i = 0, j = 0; i < ys.length; i++) {
                if (!Double.isNaN(ys[i]) && (!logY || ys[i] > 0)) { x2[j] = xs[i]; y2[j++] = ys[i]; }
            }
            chart.addSeries(e.getKey(), x2, y2);
        }
        BitmapEncoder.saveBitmap(chart, out.resolve(name + ".png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Writes {@code name.md}: title, machine, command, the table and the target lines; {@code dsa bench report} collects them. */
    static void markdown(Path out, String name, String title, String command, String notes, String table, List<String> targets)
            throws IOException {
        StringBuilder sb = new StringBuilder("## ").append(title).append("\n\n");
        sb.append("- Machine: ").append(machine()).append("\n");
        sb.append("- Command: `").append(command).append("`\n");
        if (!notes.isEmpty()) sb.append(notes).append("\n");
        sb.append("\n").append(table).append("\n");
        if (!targets.isEmpty()) {
            sb.append("Targets:\n\n");
            for (String t : targets) sb.append("- ").append(t).append("\n");
            sb.append("\n");
        }
        sb.append("Data: `").append(name).append(".csv`, plot: `").append(name).append(".png`\n");
        Files.writeString(out.resolve(name + ".md"), sb);
    }

    /** @return "a / b = r x (target ...): met|not met" */
    static String ratio(String what, double a, double b, double limit, String unit) {
        double r = a / b;
        boolean met = r <= limit;
        return String.format(Locale.ROOT, "%s: %.1f / %.1f %s = %.2fx (target <= %.2fx): **%s**", what, a, b, unit, r, limit,
                met ? "met" : "not met");
    }
}
