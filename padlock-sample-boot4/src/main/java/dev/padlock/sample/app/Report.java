package dev.padlock.sample.app;

import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that every instance schedules and ShedLock runs on one instance at a time (the
 * lock {@code shedlock:sample-report}, through the starter's Padlock provider). Each run records
 * when it started and ended, on Redis's clock, in {@link SampleData#REPORT_RUNS}.
 */
@Component
public class Report {
    private final SampleData data;
    private final String instance;
    private final long workMillis;

    Report(SampleData data, @Value("${sample.instance}") String instance,
            @Value("${sample.report.work-millis}") long workMillis) {
        this.data = data;
        this.instance = instance;
        this.workMillis = workMillis;
    }

    @Scheduled(fixedDelayString = "${sample.report.every-millis}")
    @SchedulerLock(name = "sample-report", lockAtMostFor = "PT30S")
    public void run() throws InterruptedException {
        LockAssert.assertLocked();
        long start = data.nowMicros();
        Thread.sleep(workMillis); // stands in for the report's work
        long end = data.nowMicros();
        data.append(SampleData.REPORT_RUNS, instance + " " + start + " " + end);
    }
}
