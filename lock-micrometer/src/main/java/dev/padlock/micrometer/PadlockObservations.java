package dev.padlock.micrometer;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Padlock on Micrometer's Observation API: a {@link LockObserver} that opens one observation per
 * acquisition ({@value #ACQUISITION}, from the call to the outcome) and one per hold
 * ({@value #HOLD}, from the acquisition to the final unlock, a child of its acquisition), so a
 * tracing bridge makes a span of each. Set it on the client's config:
 *
 * <pre>{@code
 * LockClient client = LockClient.create(LockConfig.builder()
 *         .redisUri("redis://127.0.0.1:6379")
 *         .observer(new PadlockObservations(observationRegistry))
 *         .build());
 * }</pre>
 *
 * <p>Low-cardinality keys: {@code padlock.kind}, and on acquisitions {@code padlock.outcome}
 * (acquired / timeout / busy / interrupted / cancelled / error). High-cardinality: {@code padlock.name},
 * the lock's name, and {@code padlock.local-hand-off} on acquisitions. A hold that ends by a lost
 * lease, or by an unlock that found it expired, carries an error. The names differ from
 * {@link PadlockMetrics}'s meters, so both can be used together with a meter handler.
 *
 * <p>Observations are started and stopped on Padlock's threads, not the caller's: they are not
 * made current in the caller's scope, and take no parent from it.
 */
public final class PadlockObservations implements LockObserver {
    /** The name of an acquisition's observation. */
    public static final String ACQUISITION = "padlock.acquisition";
    /** The name of a hold's observation. */
    public static final String HOLD = "padlock.hold";

    private final ObservationRegistry registry;

    public PadlockObservations(ObservationRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
    }

    @Override
    public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
        if (registry.isNoop()) {
            return null;
        }
        return Observation.createNotStarted(ACQUISITION, registry)
                .contextualName("lock " + kind.tag())
                .lowCardinalityKeyValue("padlock.kind", kind.tag())
                .highCardinalityKeyValue("padlock.name", lockName)
                .start();
    }

    @Override
    public Object acquisitionEnded(AcquisitionEnd end, Object context) {
        if (!(context instanceof Observation acquisition)) {
            return null;
        }
        acquisition.lowCardinalityKeyValue("padlock.outcome", PadlockMetrics.outcomeTag(end.outcome()))
                .highCardinalityKeyValue("padlock.local-hand-off", Boolean.toString(end.localHandOff()));
        if (end.outcome() == Outcome.FAILED) {
            acquisition.error(new IllegalStateException("acquiring lock '" + end.lockName() + "' failed"));
        }
        acquisition.stop();
        if (end.outcome() != Outcome.ACQUIRED || end.reentry()) {
            return null;
        }
        return Observation.createNotStarted(HOLD, registry)
                .contextualName("hold " + end.kind().tag())
                .parentObservation(acquisition)
                .lowCardinalityKeyValue("padlock.kind", end.kind().tag())
                .highCardinalityKeyValue("padlock.name", end.lockName())
                .start();
    }

    @Override
    public void released(HoldEnd end, Object holdContext) {
        if (holdContext instanceof Observation hold) {
            if (end.lapsed()) {
                hold.error(new IllegalStateException("lock '" + end.lockName() + "' had expired before its unlock"));
            }
            hold.stop();
        }
    }

    @Override
    public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
        if (holdContext instanceof Observation hold) {
            hold.error(new IllegalStateException("the lease of lock '" + lockName + "' was lost"));
            hold.stop();
        }
    }

    @Override
    public String toString() {
        return "PadlockObservations[" + registry + "]";
    }
}
