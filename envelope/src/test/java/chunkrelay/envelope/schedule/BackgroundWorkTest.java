package chunkrelay.envelope.schedule;

import chunkrelay.envelope.schedule.BackgroundWork.Stage;
import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackgroundWorkTest {
    private static final Duration BUDGET = Duration.ofMillis(600);

    private final TestClock clock = new TestClock();
    private final BackgroundWork work = new BackgroundWork(clock, BUDGET);
    private final List<String> runs = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() {
        work.stop();
    }

    @Test
    void heldWorkRunsNothingWhenTheClockMovesUntilTheTestRunsItOrResumes() throws InterruptedException {
        ClockedSchedule schedule = work.schedule("held-schedule");
        schedule.every(Duration.ofMinutes(1), Duration.ofMinutes(1), () -> runs.add("job"));
        work.hold();
        clock.advance(Duration.ofMinutes(1));
        Thread.sleep(ClockedSchedule.POLL.multipliedBy(6).toMillis());
        assertEquals(List.of(), runs, "held: the schedule's thread ran nothing");

        schedule.runDue();
        assertEquals(List.of("job"), runs, "the test drives it");

        clock.advance(Duration.ofMinutes(1));
        work.resume();
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (runs.size() < 2 && System.nanoTime() < until) {
            Thread.sleep(ClockedSchedule.POLL.toMillis());
        }
        assertEquals(List.of("job", "job"), runs, "resumed: the thread runs what the clock made due");
    }

    @Test
    void stepsStopByStageThenInTheOrderRegisteredWhateverOrderTheyWereRegisteredIn() {
        work.atStop(Stage.READS, "reads", left -> runs.add("reads"));
        work.atStop(Stage.PERIODIC, "lease", left -> runs.add("lease"));
        work.atStop(Stage.FORWARDING, "forwarding", left -> runs.add("forwarding"));
        work.atStop(Stage.DERIVATION, "derivation", left -> runs.add("derivation"));
        work.atStop(Stage.UPSTREAM, "upstream", left -> runs.add("upstream"));
        work.atStop(Stage.INTAKE, "ingest", left -> runs.add("ingest"));
        work.atStop(Stage.PERIODIC, "after the lease", left -> runs.add("after the lease"));

        work.stop();
        work.stop();

        assertEquals(List.of("ingest", "upstream", "derivation", "forwarding", "lease", "after the lease", "reads"),
                runs, "once each, in stage order");
    }

    @Test
    void aStopEndsWithinTheBudgetAndEveryStepRunsEvenWhenAnEarlierOneSpentIt() throws InterruptedException {
        List<Duration> given = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch never = new CountDownLatch(1);
        for (Stage stage : List.of(Stage.INTAKE, Stage.DERIVATION, Stage.FORWARDING)) {
            work.atStop(stage, stage.name(), left -> {
                given.add(left);
                // a step waits at most what is left of the budget
                never.await(left.toNanos(), TimeUnit.NANOSECONDS);
            });
        }
        ClockedSchedule schedule = work.schedule("stopped-schedule");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        schedule.every(Duration.ofSeconds(1), Duration.ZERO, () -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        assertTrue(started.await(10, TimeUnit.SECONDS), "the job runs");

        long start = System.nanoTime();
        work.stop();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertTrue(took.compareTo(BUDGET.plusMillis(300)) < 0, "took " + took);
        assertEquals(3, given.size(), "every step ran: " + given);
        assertTrue(given.get(0).compareTo(BUDGET) <= 0 && given.get(0).compareTo(BUDGET.minusMillis(100)) > 0,
                given.toString());
        assertEquals(Duration.ZERO, given.get(2), "the budget spent: the last step is given nothing");
        assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the periodic job under way is interrupted at stop");
    }
}
