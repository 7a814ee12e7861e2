package chunkrelay.envelope.schedule;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DueWorkTest {
    private final TestClock clock = new TestClock();
    private final DueWork work = new DueWork(clock);
    private final List<String> ran = new ArrayList<>();

    private void runDue() {
        work.takeDue().forEach(Runnable::run);
    }

    @Test
    void workRunsOnlyOnceTheClockHasReachedItsTime() {
        work.after(Duration.ofSeconds(3), () -> ran.add("window"));

        clock.advance(Duration.ofMillis(2_999));
        runDue();
        assertEquals(List.of(), ran);

        clock.advance(Duration.ofMillis(1));
        runDue();
        assertEquals(List.of("window"), ran);
    }

    @Test
    void dueWorkIsHandedOutOnceEarliestFirst() {
        work.after(Duration.ofSeconds(5), () -> ran.add("late"));
        work.after(Duration.ofSeconds(1), () -> ran.add("early"));
        work.at(clock.instant().plusSeconds(1), () -> ran.add("early, added second"));
        work.after(Duration.ofMinutes(1), () -> ran.add("not yet"));

        clock.advance(Duration.ofSeconds(10));
        runDue();
        runDue();

        assertEquals(List.of("early", "early, added second", "late"), ran);
        assertEquals(1, work.size());
    }

    @Test
    void workAddedWhileRunningWaitsForItsOwnTime() {
        work.after(Duration.ofSeconds(1), () -> {
            ran.add("first round");
            work.after(Duration.ofSeconds(1), () -> ran.add("second round"));
        });

        clock.advance(Duration.ofSeconds(1));
        runDue();
        runDue();
        assertEquals(List.of("first round"), ran);

        clock.advance(Duration.ofSeconds(1));
        runDue();
        assertEquals(List.of("first round", "second round"), ran);
    }
}
