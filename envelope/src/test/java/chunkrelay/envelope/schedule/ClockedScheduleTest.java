package chunkrelay.envelope.schedule;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ClockedScheduleTest {
    private final TestClock clock = new TestClock();
    private final ClockedSchedule schedule =
            new BackgroundWork(clock, Duration.ofSeconds(5)).schedule("clocked-schedule-test");
    private final List<String> runs = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        schedule.stopNow(Duration.ofSeconds(5));
    }

    @Test
    void aJobRunsWhenTheClockReachesItsTimeNotBefore() {
        schedule.every(Duration.ofSeconds(10), Duration.ofSeconds(2), () -> runs.add("job"));
        schedule.runDue();
        clock.advance(Duration.ofMillis(1_999));
        schedule.runDue();
        assertEquals(List.of(), runs);

        clock.advance(Duration.ofMillis(1));
        schedule.runDue();
        schedule.runDue();
        assertEquals(List.of("job"), runs, "once, then an interval later");

        clock.advance(Duration.ofSeconds(9));
        schedule.runDue();
        assertEquals(1, runs.size());
        clock.advance(Duration.ofSeconds(1));
        schedule.runDue();
        assertEquals(2, runs.size());
    }

    @Test
    void aClockThatJumpsRunsEachDueJobOnceInTheOrderAdded() {
        schedule.every(Duration.ofSeconds(1), Duration.ofSeconds(1), () -> runs.add("first"));
        schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(1), () -> runs.add("second"));
        clock.advance(Duration.ofHours(1));
        schedule.runDue();
        assertEquals(List.of("first", "second"), runs);
    }

    @Test
    void theThreadRunsWhatTheClockMadeDue() throws InterruptedException {
        List<String> seen = Collections.synchronizedList(runs);
        schedule.every(Duration.ofMinutes(1), Duration.ofMinutes(1), () -> seen.add("job"));
        clock.advance(Duration.ofMinutes(1));
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (seen.isEmpty() && System.nanoTime() < until) {
            Thread.sleep(ClockedSchedule.POLL.toMillis());
        }
        assertEquals(List.of("job"), seen);
    }
}
