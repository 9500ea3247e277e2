package dev.padlock.micrometer;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Padlock's meters: a {@link LockObserver} that records, and a {@link MeterBinder} that says
 * where. Set it on the client's config and bind it to a registry, in either order; events before
 * the first {@link #bindTo} are not counted.
 *
 * <pre>{@code
 * PadlockMetrics metrics = PadlockMetrics.builder().build();
 * LockClient client = LockClient.create(LockConfig.builder()
 *         .redisUri("redis://127.0.0.1:6379").observer(metrics).build());
 * metrics.bindTo(meterRegistry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>tags</th></tr>
 *   <tr><td>{@code padlock.lock.acquire}</td><td>Timer, from the call to the outcome</td>
 *       <td>{@code kind}, {@code outcome} = acquired / timeout / busy (a single attempt found it held) / interrupted / cancelled / error</td></tr>
 *   <tr><td>{@code padlock.lock.held}</td><td>Timer, from acquisition to final unlock</td><td>{@code kind}</td></tr>
 *   <tr><td>{@code padlock.lock.active}</td><td>LongTaskTimer, holds in progress</td><td>{@code kind}</td></tr>
 *   <tr><td>{@code padlock.lock.waiting}</td><td>Gauge, owners of this client waiting now</td><td>{@code kind}</td></tr>
 *   <tr><td>{@code padlock.lease.renewals}</td><td>Counter</td><td>{@code outcome} = renewed / lost / error</td></tr>
 *   <tr><td>{@code padlock.lease.lost}</td><td>Counter</td><td>{@code kind}</td></tr>
 * </table>
 *
 * <p>Tags stay bounded: {@code kind} and {@code outcome} have a few values each. The lock's name
 * becomes a {@code name} tag (on acquire, held, active and lease.lost) only when asked for, with
 * {@link Builder#lockNameTag()} for a bounded set of lock names, or {@link Builder#lockNameTag(Function)}
 * mapping names to a bounded set (for example {@code orders:42 -> orders}).
 *
 * <p>Thread-safe; its callbacks run on Padlock's threads and do not block. Meters are made once
 * per registry and tag set and then looked up in a map.
 */
public final class PadlockMetrics implements LockObserver, MeterBinder {
    private final Function<String, String> nameTag;
    private final Map<Kind, AtomicInteger> waiting = new ConcurrentHashMap<>();
    private final List<Meters> registries = new CopyOnWriteArrayList<>();

    private PadlockMetrics(Builder builder) {
        this.nameTag = builder.nameTag;
        for (Kind kind : Kind.values()) {
            waiting.put(kind, new AtomicInteger());
        }
    }

    /** Metrics without a lock-name tag. */
    public static PadlockMetrics create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        requireNonNull(registry, "registry");
        for (Kind kind : Kind.values()) {
            Gauge.builder("padlock.lock.waiting", waiting.get(kind), AtomicInteger::get)
                    .description("Owners of this client waiting for a lock now")
                    .tag("kind", kind.tag())
                    .register(registry);
        }
        registries.add(new Meters(registry));
    }

    // ---- LockObserver

    @Override
    public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
        waiting.get(kind).incrementAndGet();
        return null;
    }

    @Override
    public Object acquisitionEnded(AcquisitionEnd end, Object context) {
        waiting.get(end.kind()).decrementAndGet();
        String outcome = outcomeTag(end.outcome());
        String name = name(end.lockName());
        LongTaskTimer.Sample[] samples = null;
        boolean newHold = end.outcome() == Outcome.ACQUIRED && !end.reentry();
        List<Meters> bound = registries;
        if (newHold) {
            samples = new LongTaskTimer.Sample[bound.size()];
        }
        int i = 0;
        for (Meters meters : bound) {
            meters.acquire(end.kind(), outcome, name).record(end.waitNanos(), TimeUnit.NANOSECONDS);
            if (newHold && i < samples.length) {
                samples[i++] = meters.active(end.kind(), name).start();
            }
        }
        return samples;
    }

    @Override
    public void released(HoldEnd end, Object holdContext) {
        String name = name(end.lockName());
        for (Meters meters : registries) {
            meters.held(end.kind(), name).record(end.heldNanos(), TimeUnit.NANOSECONDS);
        }
        stop(holdContext);
    }

    @Override
    public void leasesRenewed(int owners, RenewalOutcome outcome) {
        for (Meters meters : registries) {
            meters.renewals(outcome).increment(owners);
        }
    }

    @Override
    public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
        String name = name(lockName);
        for (Meters meters : registries) {
            meters.lost(kind, name).increment();
        }
        stop(holdContext);
    }

    private static void stop(Object holdContext) {
        if (holdContext instanceof LongTaskTimer.Sample[] samples) {
            for (LongTaskTimer.Sample sample : samples) {
                if (sample != null) {
                    sample.stop();
                }
            }
        }
    }

    private String name(String lockName) {
        return nameTag == null ? null : nameTag.apply(lockName);
    }

    static String outcomeTag(Outcome outcome) {
        return switch (outcome) {
            case ACQUIRED -> "acquired";
            case TIMED_OUT -> "timeout";
            case BUSY -> "busy";
            case INTERRUPTED -> "interrupted";
            case CANCELLED -> "cancelled";
            case FAILED -> "error";
        };
    }

    @Override
    public String toString() {
        return "PadlockMetrics[" + registries.size() + " registries" + (nameTag == null ? "" : ", name tag") + "]";
    }

    /** The meters of one registry, made on first use per tag set and kept. */
    private static final class Meters {
        private final MeterRegistry registry;
        private final Map<List<String>, Timer> acquire = new ConcurrentHashMap<>();
        private final Map<List<String>, Timer> held = new ConcurrentHashMap<>();
        private final Map<List<String>, LongTaskTimer> active = new ConcurrentHashMap<>();
        private final Map<List<String>, Counter> lost = new ConcurrentHashMap<>();
        private final Map<RenewalOutcome, Counter> renewals = new ConcurrentHashMap<>();

        Meters(MeterRegistry registry) {
            this.registry = registry;
        }

        private static List<String> key(Kind kind, String outcome, String name) {
            return name == null ? List.of(kind.tag(), outcome) : List.of(kind.tag(), outcome, name);
        }

        private static Tags tags(Kind kind, String name) {
            Tags tags = Tags.of("kind", kind.tag());
            return name == null ? tags : tags.and("name", name);
        }

        Timer acquire(Kind kind, String outcome, String name) {
            return acquire.computeIfAbsent(key(kind, outcome, name), k -> Timer.builder("padlock.lock.acquire")
                    .description("Lock acquisitions, from the call to the outcome")
                    .tags(tags(kind, name)).tag("outcome", outcome)
                    .register(registry));
        }

        Timer held(Kind kind, String name) {
            return held.computeIfAbsent(key(kind, "", name), k -> Timer.builder("padlock.lock.held")
                    .description("Lock holds, from acquisition to the final unlock")
                    .tags(tags(kind, name))
                    .register(registry));
        }

        LongTaskTimer active(Kind kind, String name) {
            return active.computeIfAbsent(key(kind, "", name), k -> LongTaskTimer.builder("padlock.lock.active")
                    .description("Lock holds in progress")
                    .tags(tags(kind, name))
                    .register(registry));
        }

        Counter lost(Kind kind, String name) {
            return lost.computeIfAbsent(key(kind, "", name), k -> Counter.builder("padlock.lease.lost")
                    .description("Watchdog leases found lost")
                    .tags(tags(kind, name))
                    .register(registry));
        }

        Counter renewals(RenewalOutcome outcome) {
            return renewals.computeIfAbsent(outcome, o -> Counter.builder("padlock.lease.renewals")
                    .description("Watchdog lease renewals, by owner")
                    .tag("outcome", o.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry));
        }
    }

    /** Builds {@link PadlockMetrics}. Not thread-safe. */
    public static final class Builder {
        private Function<String, String> nameTag;

        private Builder() {
        }

        /**
         * Tags meters with the lock's name as it is. Only for a small, fixed set of lock names:
         * each name makes meters of its own.
         */
        public Builder lockNameTag() {
            return lockNameTag(Function.identity());
        }

        /**
         * Tags meters with {@code mapper}'s value for the lock's name, which must come from a small,
         * fixed set (say, the name up to its first {@code ':'}).
         */
        public Builder lockNameTag(Function<String, String> mapper) {
            this.nameTag = requireNonNull(mapper, "mapper");
            return this;
        }

        public PadlockMetrics build() {
            return new PadlockMetrics(this);
        }
    }

}
