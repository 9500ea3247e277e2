package dev.padlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.SubstituteLogger;

/** One WARN per outage and name, the repeats and stacks at DEBUG, one INFO at recovery. */
class OutageLogTest {
    private final ConcurrentLinkedQueue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
    private final OutageLog outages = new OutageLog(
            new EventRecordingLogger(new SubstituteLogger("test", events, false), events), () -> 0L);

    @Test
    void aJobFailingEverySecondThroughAnOutageWarnsOnceAndSaysWhenItRecovers() {
        RuntimeException down = new IllegalStateException("cannot reach Redis at 127.0.0.1:7000");
        for (int i = 0; i < 30; i++) {
            outages.failed("report", "ShedLock lock", down);
        }
        outages.failed("cleanup", "ShedLock lock", down);
        assertThat(outages.isFailing("report")).isTrue();
        outages.succeeded("report", "ShedLock lock");
        outages.succeeded("report", "ShedLock lock");

        List<SubstituteLoggingEvent> warnings = at(Level.WARN);
        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0).getMessage()).contains("{} on '{}' failed: {}");
        assertThat(warnings.get(0).getArgumentArray()).containsExactly("ShedLock lock", "report",
                "IllegalStateException: cannot reach Redis at 127.0.0.1:7000");
        assertThat(warnings).allSatisfy(w -> assertThat(w.getThrowable()).as("no stack at WARN").isNull());
        assertThat(at(Level.DEBUG)).hasSize(31).allSatisfy(d -> assertThat(d.getThrowable()).isSameAs(down));
        assertThat(at(Level.INFO)).singleElement().satisfies(info -> assertThat(info.getArgumentArray())
                .startsWith("ShedLock lock", "report", 30L));
        assertThat(outages.isFailing("report")).isFalse();
        assertThat(outages.isFailing("cleanup")).isTrue();
    }

    /** One clock per client (issue 39): an outage is timed on the clock it is given, not the system's. */
    @Test
    void anOutageIsTimedOnTheClockItIsGiven() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(5_000_000_000L);
        OutageLog timed = new OutageLog(new EventRecordingLogger(new SubstituteLogger("timed", events, false), events),
                nanos::get);
        timed.failed("report", "ShedLock lock", new IllegalStateException("down"));
        nanos.addAndGet(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1_500));
        timed.succeeded("report", "ShedLock lock");

        assertThat(at(Level.INFO)).singleElement().satisfies(info -> assertThat(info.getArgumentArray())
                .containsExactly("ShedLock lock", "report", 1L, 1_500L));
    }

    @Test
    void aNameThatNeverFailedRecoversSilently() {
        outages.succeeded("report", "ShedLock lock");
        assertThat(events).isEmpty();
    }

    private List<SubstituteLoggingEvent> at(Level level) {
        return events.stream().filter(e -> e.getLevel() == level).toList();
    }
}
