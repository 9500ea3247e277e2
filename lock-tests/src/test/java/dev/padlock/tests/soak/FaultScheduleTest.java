package dev.padlock.tests.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The soak's schedule: a function of its seed, every kind in a CI-sized run, never overlapping. */
@Tag("faults")
class FaultScheduleTest {

    private static final long CI_MS = FaultScheduleSoakTest.DEFAULT_SECONDS * 1_000L;

    @Test
    void theSameSeedGivesTheSameSchedule() {
        FaultSchedule one = FaultSchedule.generate(42, 300_000, 4, SoakRun.WATCHDOG_MS, SoakWorker.LEASE_MS);
        FaultSchedule two = FaultSchedule.generate(42, 300_000, 4, SoakRun.WATCHDOG_MS, SoakWorker.LEASE_MS);
        FaultSchedule other = FaultSchedule.generate(43, 300_000, 4, SoakRun.WATCHDOG_MS, SoakWorker.LEASE_MS);

        assertThat(two).isEqualTo(one);
        assertThat(other.faults()).isNotEqualTo(one.faults());
    }

    @Test
    void theCiRunSeesEveryKindOfFault() {
        FaultSchedule schedule = FaultSchedule.generate(FaultScheduleSoakTest.DEFAULT_SEED, CI_MS,
                FaultScheduleSoakTest.DEFAULT_PROCESSES, SoakRun.WATCHDOG_MS, SoakWorker.LEASE_MS);

        Set<FaultSchedule.Kind> kinds = schedule.faults().stream().map(FaultSchedule.Fault::kind)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultSchedule.Kind.class)));
        assertThat(kinds).containsExactlyInAnyOrder(FaultSchedule.Kind.values());
    }

    @Test
    void theCiRunStopsAWorkerInAWaitTwice() {
        FaultSchedule schedule = FaultSchedule.generate(FaultScheduleSoakTest.DEFAULT_SEED, CI_MS,
                FaultScheduleSoakTest.DEFAULT_PROCESSES, SoakRun.WATCHDOG_MS, SoakWorker.LEASE_MS);

        assertThat(schedule.faults()).filteredOn(f -> f.kind() == FaultSchedule.Kind.WAITER_STOP).hasSize(2)
                .allSatisfy(f -> {
                    assertThat(f.durationMs()).isGreaterThan(SoakRun.WATCHDOG_MS);
                    assertThat(f.leadMs()).isBetween(100L, 300L);
                });
    }

    @Test
    void faultsNeverOverlapAndLeaveTheEdgesQuiet() {
        for (long seed = 0; seed < 50; seed++) {
            FaultSchedule schedule = FaultSchedule.generate(seed, 120_000, 4, SoakRun.WATCHDOG_MS,
                    SoakWorker.LEASE_MS);
            long free = FaultSchedule.WARM_UP_MS;
            for (FaultSchedule.Fault fault : schedule.faults()) {
                assertThat(fault.offsetMs()).as("seed %d: %s", seed, fault).isGreaterThanOrEqualTo(free);
                assertThat(fault.spanMs()).as("seed %d: %s", seed, fault).isGreaterThanOrEqualTo(fault.durationMs());
                free = fault.offsetMs() + fault.spanMs();
                assertThat(fault.worker()).isLessThan(4);
            }
            assertThat(free).as("seed %d", seed).isLessThanOrEqualTo(120_000 - FaultSchedule.QUIET_TAIL_MS);
        }
    }
}
