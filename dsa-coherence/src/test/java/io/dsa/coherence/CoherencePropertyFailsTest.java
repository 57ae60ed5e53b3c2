package io.dsa.coherence;

import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The stateful property can fail: a broken oracle (it forgets node 1's writes) on 2 nodes is
 * caught, shrunk to a few steps (a write by node 1, a read of that element, the messages between)
 * and reported with its seed. Runs {@link BrokenOracleProperty} through the JUnit Platform.
 */
@org.junit.jupiter.api.Timeout(value = 120, unit = java.util.concurrent.TimeUnit.SECONDS)
class CoherencePropertyFailsTest {

    @Test
    void brokenOracleIsCaughtAndShrunk() {
        EngineExecutionResults results = EngineTestKit.engine("jqwik")
                .configurationParameter("jqwik.database", "target/jqwik-database-broken-oracle")
                .configurationParameter("jqwik.shrinking.bounded.seconds", "3")
                .configurationParameter("jqwik.reporting.usejunitplatform", "true")
                .selectors(selectClass(BrokenOracleProperty.class))
                .execute();
        List<Event> failed = results.testEvents().failed().list();
        assertEquals(1, failed.size(), "the broken oracle must fail the property: " + results.testEvents().list());
        Throwable thrown = failed.get(0).getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow();
        String message = thrown.getMessage();
        assertTrue(message.contains("stale read"), message);

        assertTrue(message.contains("seed 7 (nodes 2"), message);

        // jqwik reports the seed to replay with, and the original and the shrunk chain
        String report = results.allEvents().reportingEntryPublished().stream()
                .map(e -> e.getRequiredPayload(ReportEntry.class).getKeyValuePairs().toString())
                .collect(Collectors.joining("\n"));
        assertTrue(report.contains("seed = " + BrokenOracleProperty.SEED), report);
        int original = stepsOf(report, "Original Error");
        int shrunk = stepsOf(message, "");
        assertTrue(shrunk <= original && shrunk <= 8, "shrunk from " + original + " to " + shrunk + " steps:\n" + report);
        assertTrue(report.contains("Shrunk Sample ("), report);
        // the shrunk chain still holds the cause: node 1 completed a write the oracle forgot
        assertTrue(message.contains("done n1w0 write"), message);
    }

    /** The step count of the first "chain of N steps" after {@code after} in {@code text}. */
    private static int stepsOf(String text, String after) {
        Matcher m = Pattern.compile("chain of (\\d+) steps").matcher(text);
        assertTrue(m.find(text.indexOf(after)), "no chain after '" + after + "' in:\n" + text);
        return Integer.parseInt(m.group(1));
    }
}
