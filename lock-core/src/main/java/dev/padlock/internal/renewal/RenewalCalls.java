package dev.padlock.internal.renewal;

import dev.padlock.LockObserver.RenewalOutcome;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.lease.LeaseClocks;
import dev.padlock.internal.renewal.Renewal.State;
import dev.padlock.spi.OutageLog;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * One renewal call of the {@link Watchdog} and what its reply does: each owner still held has its
 * confirmed end moved on from the call's send (its lease's clock too), each not held is handed to
 * {@code onLost}; failures are logged once per outage and the observer told.
 */
final class RenewalCalls {
    private static final String OUTAGE_NAME = "watchdog";
    /** Logged under the watchdog's name, as before this class was split from it. */
    private final OutageLog outages;
    private final Watchdog.Sender sender;
    private final EngineClock clock;
    private final long leaseMillis;
    /** The client's observer; null when none is set. */
    private final @Nullable RenewalListener observing;
    private final Consumer<Renewal> onLost;
    private final LeaseClocks leaseClocks;

    RenewalCalls(Watchdog.Sender sender, EngineClock clock, long leaseMillis, @Nullable RenewalListener observing,
            Consumer<Renewal> onLost, LeaseClocks leaseClocks) {
        this.leaseClocks = leaseClocks;
        this.sender = sender;
        this.clock = clock;
        this.outages = new OutageLog(LoggerFactory.getLogger(Watchdog.class), clock::nanoTime);
        this.leaseMillis = leaseMillis;
        this.observing = observing;
        this.onLost = onLost;
    }

    /** Sends one renewal call for {@code batch} (one script, one Cluster slot); under the watchdog's dispatch lock. */
    void send(List<Renewal> batch) {
        List<String> keys = new ArrayList<>(batch.size());
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < batch.size(); i++) {
            Renewal renewal = batch.get(i);
            keys.addAll(List.of(renewal.protocol.renewKeys(renewal.owner)));
            args[i + 1] = renewal.protocol.ownerField(renewal.owner);
        }
        String first = batch.get(0).protocol.name();
        long sentNanos = clock.nanoTime(); // leases count from the send (LeaseClocks)
        sender.renew(batch.get(0).protocol.renewScript(), keys.toArray(String[]::new), args)
                .whenComplete((renewed, failure) -> {
                    if (failure != null) {
                        // one WARN per outage (each failure at DEBUG): renewals run every lease/3
                        outages.failed(OUTAGE_NAME, "renewing " + batch.size() + " lock lease(s) ('" + first
                                + "'...; again every " + Math.max(1, leaseMillis / 3) + " ms)", failure);
                        if (observing != null) {
                            observing.renewed(batch.size(), RenewalOutcome.ERROR);
                        }
                        return;
                    }
                    outages.succeeded(OUTAGE_NAME, "renewing lock leases");
                    int lost = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        Renewal renewal = batch.get(i);
                        if (Long.valueOf(0L).equals(renewed.get(i))) {
                            lost++;
                            onLost.accept(renewal);
                        } else if (renewal.state() != State.LOST) { // a loss told is final
                            renewal.ttlExtended(sentNanos, leaseMillis);
                            leaseClocks.ttlSet(renewal.protocol, renewal.owner, sentNanos, leaseMillis);
                        }
                    }
                    if (observing != null) {
                        observing.renewed(batch.size() - lost, RenewalOutcome.RENEWED);
                        observing.renewed(lost, RenewalOutcome.LOST);
                    }
                });
    }
}
