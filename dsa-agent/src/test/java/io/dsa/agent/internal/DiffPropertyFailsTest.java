package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The release property can fail: with the home writing a diff before it invalidates the copies
 * elsewhere, jqwik finds a schedule with a stale read after the scope, reports the seed to replay
 * it, and the schedule it reports is no longer than the one it found. Runs {@link BrokenDiffProperty}
 * through the JUnit Platform.
 */
@Timeout(120)
class DiffPropertyFailsTest {

    @Test
    void aDiffWrittenBeforeTheCopiesAreInvalidatedIsFoundAndShrunk() {
        EngineExecutionResults results = EngineTestKit.engine("jqwik")
                .configurationParameter("jqwik.database", "target/jqwik-database-broken-diff")
                .configurationParameter("jqwik.shrinking.bounded.seconds", "20")
                .configurationParameter("jqwik.reporting.usejunitplatform", "true")
                .selectors(selectClass(BrokenDiffProperty.class))
                .execute();
        List<Event> failed = results.testEvents().failed().list();
        assertEquals(1, failed.size(), "the seeded bug must fail the property: " + results.testEvents().list());
        Throwable thrown = failed.get(0).getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow();
        String message = thrown.getMessage();
        assertTrue(message.startsWith("schedule of ") && message.contains("stale read"), message);

        String report = results.allEvents().reportingEntryPublished().stream()
                .map(e -> e.getRequiredPayload(ReportEntry.class).getKeyValuePairs().toString())
                .collect(Collectors.joining("\n"));
        assertTrue(report.contains("seed = " + BrokenDiffProperty.SEED), report);
        // the failing schedule as jqwik first found it, and as shrunk (never longer; this bug fails almost every
        // schedule, so jqwik's first failing one is short already)
        int original = choicesOf(report, "Original Error");
        int shrunk = choicesOf(message, "");
        System.out.println("BrokenDiffProperty: a schedule of " + original + " choices shrunk to " + shrunk);
        assertTrue(shrunk <= original, "shrunk from " + original + " to " + shrunk + " choices:\n" + report);
    }

    /** The choice count of the first "schedule of N choices" after {@code after} in {@code text}. */
    private static int choicesOf(String text, String after) {
        Matcher m = Pattern.compile("schedule of (\\d+) choices").matcher(text);
        assertTrue(m.find(Math.max(0, text.indexOf(after))), "no schedule after '" + after + "' in:\n" + text);
        return Integer.parseInt(m.group(1));
    }
}
