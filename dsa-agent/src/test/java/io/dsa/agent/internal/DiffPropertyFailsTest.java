package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The scope properties can fail: each seeded bug of {@link BrokenDiffProperty} (two of the home's
 * diffs, two of scope entry, one of accumulates) fails its property with the check that should
 * catch it (a stale read after the phase, or a read cache open before its copies arrived), the
 * schedule's length in the message and jqwik's seed in the report. Runs {@link BrokenDiffProperty}
 * through the JUnit Platform.
 */
@Timeout(120)
class DiffPropertyFailsTest {

    @Test
    void eachSeededBugFailsItsPropertyWithASeedAndAScheduleNoLongerThanFound(@TempDir Path dir) {
        // a database of its own: one left by an earlier run would replay its shrunk sample first, which does not shrink
        EngineExecutionResults results = EngineTestKit.engine("jqwik")
                .configurationParameter("jqwik.database", dir.resolve("jqwik-database").toString())
                .configurationParameter("jqwik.shrinking.bounded.seconds", "10")
                .configurationParameter("jqwik.reporting.usejunitplatform", "true")
                .selectors(selectClass(BrokenDiffProperty.class))
                .execute();
        Map<String, String> expected = Map.of(
                "aDiffWrittenBeforeTheCopiesAreInvalidatedIsCaught", "stale read",
                "anAccumulateScopesUpdatesWrittenInsteadOfCombinedAreCaught", "stale read",
                "aReadCacheOpenedBeforeItsCopiesArriveIsCaught", "read cache open at node",
                "ownerComputesWithoutRecallingTheOtherCopiesIsCaught", "stale read",
                "anAccumulateAppliedTwiceIsCaught", "stale read");
        List<Event> failed = results.testEvents().failed().list();
        assertEquals(expected.size(), failed.size(), "every seeded bug must fail its property: " + results.testEvents().list());
        String report = results.allEvents().reportingEntryPublished().stream()
                .map(e -> e.getRequiredPayload(ReportEntry.class).getKeyValuePairs().toString())
                .collect(Collectors.joining("\n"));
        for (Event e : failed) {
            String property = e.getTestDescriptor().getLegacyReportingName().replace("()", "").replaceAll("\\(.*", "");
            String message = e.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow().getMessage();
            assertTrue(expected.containsKey(property), "unexpected failure of " + property + ": " + message);
            assertTrue(message.startsWith("schedule of ") && message.contains(expected.get(property)), property + ": " + message);
            System.out.println("BrokenDiffProperty." + property + ": found, shrunk to a schedule of " + choicesOf(message, "")
                    + " choices");
        }
        // jqwik names the seed that replays each failure, the schedule it first found and the one it shrank that to
        assertTrue(report.contains("seed = " + BrokenDiffProperty.SEED), report);
        Matcher original = Pattern.compile("Original Error\\s+-+\\s+(?:[\\w.]+Error:\\s+)?schedule of (\\d+) choices").matcher(report);
        int originals = 0;
        int shortest = Integer.MAX_VALUE;
        while (original.find()) {
            originals++;
            shortest = Math.min(shortest, Integer.parseInt(original.group(1)));
        }
        assertEquals(expected.size(), originals, "one original failing schedule per property:\n" + report);
        assertEquals(expected.size(), report.split("Shrunk Sample \\(", -1).length - 1, "one shrunk sample per property:\n" + report);
        for (Event e : failed) {
            String message = e.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow().getMessage();
            assertTrue(choicesOf(message, "") <= shortest, "a reported schedule longer than every one found first: " + message);
        }
    }

    /** The choice count of the first "schedule of N choices" after {@code after} in {@code text}. */
    private static int choicesOf(String text, String after) {
        Matcher m = Pattern.compile("schedule of (\\d+) choices").matcher(text);
        assertTrue(m.find(Math.max(0, text.indexOf(after))), "no schedule after '" + after + "' in:\n" + text);
        return Integer.parseInt(m.group(1));
    }
}
