package dev.padlock.internal.composite;

import static dev.padlock.internal.base.Nulls.castToNonNull;

import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.lease.LeaseClock;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.protocol.MultiLockCalls;
import dev.padlock.internal.queue.LocalQueues;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.internal.renewal.Watchdog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A multi lock of plain locks of one client, taken and given back in one script call per server
 * ({@code multi_acquire}, {@code multi_release}; on a Cluster one call per slot, sent together)
 * rather than one round trip per component. A fast path in front of {@link MultiLockAcquisition}'s
 * one-by-one rounds, which stay the answer to everything else.
 *
 * <h2>Implementation notes</h2>
 * <b>When.</b> Only over components that are {@link BatchComponent}s of one client, of distinct
 * names ({@link #of}), and only while this client's local view of every component is idle
 * ({@link LocalQueues#idle}: none of its owners holds, acquires, releases or waits for it) and the
 * owner holds none of them as this client knows, with no give-back of an earlier claim of the owner
 * under way ({@link #mayAcquire}). Then the call is a claim of every lock: all or nothing on Redis.
 *
 * <p><b>What a miss does.</b> A lock held by another owner (a Padlock or Redisson field) makes the
 * call write nothing; on a Cluster the slots that were taken are given back before anything else is
 * sent. The caller then runs its one-by-one round, which waits as it always did. A reply that was
 * lost (or any failure) is given back by each lock's claim give-back ({@code Abandonments}), which
 * the owner's next acquisition of that lock waits for; the caller is never told it holds on a
 * reply that did not come, nor on one read after the lease it asked for could have run out.
 *
 * <p><b>Bookkeeping.</b> Held, each component is what a single acquisition leaves: the local view
 * knows the owner holds it outside the view ({@link LocalQueues#onHeldElsewhere(String, long, long)}:
 * the owner's own acquisitions of the component re-enter, others of the client find it held on
 * Redis and wait for its unlock message), the watchdog renews it (its rounds batch renewals per
 * server already), and the observer hears of each component's hold. The release
 * ({@link #mayRelease}, {@link #release}) is taken only when the owner holds every component so
 * and the views are still idle; each outcome then ends or keeps the renewal, and the view's note,
 * as the one-by-one release would.
 */
final class MultiBatch {
    private static final Logger log = LoggerFactory.getLogger(MultiLock.class);
    /** What the observer is shown for a component held by the call: held already. */
    private static final PendingAcquire HELD = new PendingAcquire() {
        private final CompletableFuture<Boolean> result = CompletableFuture.completedFuture(true);
        private final CompletableFuture<Void> settled = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }
    };

    /** What {@link #acquire} did. */
    enum Taken {
        /** The owner holds every component. */
        ALL,
        /** A component is held by another owner, and nothing of the call is left on Redis. */
        HELD_ELSEWHERE,
        /** Not taken for another reason (a lost or late reply), given back or being given back. */
        NONE
    }

    /** In the multi lock's order. */
    private final List<BatchComponent.Member> members;
    /**
     * Per owner: its holds of this multi lock taken by one call (a first hold, then re-entries, all
     * outside the local views), so that a re-entry is one call too and a release whose reply was lost
     * keeps the others, as one by one.
     */
    private final ConcurrentHashMap<Long, Integer> holds = new ConcurrentHashMap<>();
    /** Per owner: its releases by one call not answered yet (a slot's each), while which its count may move. */
    private final ConcurrentHashMap<Long, Integer> releasing = new ConcurrentHashMap<>();
    private final AcquireContext client;
    private final LocalQueues queues;
    private final MultiLockCalls calls;

    private MultiBatch(List<BatchComponent.Member> members) {
        this.members = members;
        this.client = members.get(0).client();
        this.queues = members.get(0).queues();
        this.calls = new MultiLockCalls(client);
    }

    /**
     * The one-call path over {@code locks}, or null when they cannot take it: a component that is
     * not a {@link BatchComponent} (or is one of a kind that cannot join), components of several
     * clients, or two of one name (the second is a re-entry of the first, which one claim cannot count).
     */
    static @Nullable MultiBatch of(List<RLock> locks) {
        List<BatchComponent.Member> members = new ArrayList<>(locks.size());
        Set<String> names = new HashSet<>();
        for (RLock lock : locks) {
            BatchComponent.Member member = lock instanceof BatchComponent component ? component.batchMember() : null;
            if (member == null || (!members.isEmpty() && member.client() != members.get(0).client())
                    || !names.add(member.protocol().name())) {
                return null;
            }
            members.add(member);
        }
        return new MultiBatch(List.copyOf(members));
    }

    // ---- acquire

    /** Whether an acquisition by {@code owner} may be one claim of every component now: see the class notes. */
    boolean mayAcquire(long owner) {
        int held = heldBy(owner);
        if (client.wakeUps().isClosed() || held == 0 && !queues.roomOutsideViews(members.size())) {
            return false; // the one-by-one path says so; or too many holds outside the views to note
        }
        for (BatchComponent.Member member : members) {
            String key = member.protocol().localKey();
            // a first hold where the owner holds none; a re-entry where it holds each by this path alone
            if (!queues.idle(key) || queues.counts(key, owner) != (held > 0)
                    || client.abandonments().pending(member.protocol(), owner) != null) {
                return false;
            }
        }
        return true;
    }

    /** How many holds of this multi lock {@code owner} took by one call and has not released. */
    private int heldBy(long owner) {
        return holds.isEmpty() ? 0 : holds.getOrDefault(owner, 0);
    }

    /**
     * Claims every component for {@code owner}; {@link Taken#ALL} once it holds them all, with the
     * bookkeeping done. Otherwise nothing is left behind (or its give-back is under way, which the
     * owner's next acquisitions wait for): a component was held elsewhere, or a reply was lost or
     * came too late. Never fails.
     *
     * @param leaseMillis fixed, or {@link LeaseMillis#WATCHDOG}
     * @param waitNanos the multi lock's wait, as the observer is told it
     */
    CompletableFuture<Taken> acquire(long owner, long leaseMillis, long waitNanos) {
        long ttlMillis = LeaseMillis.ttlMillis(leaseMillis, client.watchdog().leaseMillis());
        int heldBefore = heldBy(owner);
        List<List<BatchComponent.Member>> groups = groups();
        List<CompletableFuture<Integer>> replies = new ArrayList<>(groups.size());
        long sentNanos = client.clock().nanoTime();
        for (List<BatchComponent.Member> group : groups) {
            replies.add(CompositeLocks.call(() -> heldBefore == 0 ? calls.claim(names(group), ttlMillis, owner)
                    : calls.reenter(names(group), ttlMillis, owner)));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new)).handle((ok, ignored) -> null)
                .thenCompose(answered -> {
                    boolean allHeld = replies.stream().allMatch(reply -> !reply.isCompletedExceptionally()
                            && reply.join() == MultiLockCalls.ALL_HELD);
                    boolean inTime = client.clock().nanoTime() - LeaseClock.endOf(sentNanos, ttlMillis) < 0;
                    if (allHeld && inTime) {
                        holds.merge(owner, 1, Integer::sum);
                        held(owner, leaseMillis, sentNanos, waitNanos);
                        return CompletableFuture.completedFuture(Taken.ALL);
                    }
                    boolean elsewhere = !allHeld && replies.stream().noneMatch(CompletableFuture::isCompletedExceptionally);
                    if (allHeld) {
                        log.debug("'{}' and the other components: the reply came after their lease could have run out;"
                                + " giving them back", members.get(0).protocol().name());
                    }
                    return giveBack(groups, replies, owner, ttlMillis, heldBefore).thenApply(clean ->
                            elsewhere && clean ? Taken.HELD_ELSEWHERE : Taken.NONE);
                });
    }

    /** Every component is held: the bookkeeping a single acquisition leaves (see the class notes). */
    private void held(long owner, long leaseMillis, long sentNanos, long waitNanos) {
        Watchdog watchdog = client.watchdog();
        for (BatchComponent.Member member : members) {
            LockProtocol protocol = member.protocol();
            queues.onHeldElsewhere(protocol.localKey(), owner, leaseMillis);
            watchdog.onAcquired(protocol, owner, leaseMillis, sentNanos);
            Observing observing = member.observing();
            if (observing != null) {
                observing.started(HELD, protocol, member.kind(), owner, waitNanos, sentNanos);
            }
        }
    }

    /**
     * Gives back what a claim that is not taken as held may have left: the slots it took are
     * released, the components of a slot whose reply was lost (or of a give-back that failed) are
     * given back by their claim give-back. Completes once the releases were answered: whether they
     * all were.
     */
    private CompletableFuture<Boolean> giveBack(List<List<BatchComponent.Member>> groups,
            List<CompletableFuture<Integer>> replies, long owner, long ttlMillis, int heldBefore) {
        List<CompletableFuture<List<ReleaseOutcome>>> releases = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            List<BatchComponent.Member> group = groups.get(g);
            CompletableFuture<Integer> reply = replies.get(g);
            if (reply.isCompletedExceptionally()) {
                abandon(group, owner, ttlMillis, heldBefore);
            } else if (reply.join() == MultiLockCalls.ALL_HELD) {
                releases.add(CompositeLocks.call(() -> calls.release(names(group), 0, owner)).whenComplete(
                        (outcomes, failure) -> {
                            if (failure != null) {
                                abandon(group, owner, ttlMillis, heldBefore);
                            }
                        }));
            }
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new)).handle((ok, failure) -> failure == null);
    }

    /**
     * Gives back what a call in doubt may have added on {@code group}: a claim by the claim's
     * give-back; a re-entry by one release where Redis counts more than the owner's other holds.
     */
    private void abandon(List<BatchComponent.Member> group, long owner, long ttlMillis, int heldBefore) {
        for (BatchComponent.Member member : group) {
            if (heldBefore == 0) {
                client.abandonments().abandon(member.protocol(), owner, ttlMillis);
            } else {
                client.abandonments().giveBackIfLanded(member.protocol(), owner, () -> heldBefore);
            }
        }
    }

    // ---- release

    /**
     * Whether {@code owner}'s unlock may be one release of every component now: it holds each as
     * this one-call path left it (outside the local views, which are idle), none was told lost on
     * silence, and the watchdog renews all of them or none (one re-arm lease for all).
     */
    boolean mayRelease(long owner) {
        if (client.wakeUps().isClosed()) {
            return false;
        }
        Watchdog watchdog = client.watchdog();
        if (heldBy(owner) == 0) {
            return false; // held another way: one by one
        }
        Boolean renewing = null;
        for (BatchComponent.Member member : members) {
            LockProtocol protocol = member.protocol();
            String key = protocol.localKey();
            if (!queues.idle(key) || !queues.counts(key, owner) || watchdog.toldLostOnSilence(protocol, owner)) {
                return false;
            }
            boolean renewed = watchdog.isRenewing(protocol, owner);
            if (renewing != null && renewing != renewed) {
                return false;
            }
            renewing = renewed;
        }
        return true;
    }

    /**
     * Drops one hold of {@code owner} on every component, with the bookkeeping a single release
     * does around it; each component's outcome, in the multi lock's order. Fails (once every call
     * answered) with the first failure: the components it was sent for are then taken as holding
     * nothing, their renewals ended; what Redis kept ends with its lease.
     */
    CompletableFuture<List<ReleaseOutcome>> release(long owner) {
        int heldBefore = heldBy(owner);
        if (heldBefore <= 1) {
            holds.remove(owner);
        } else {
            holds.put(owner, heldBefore - 1);
        }
        Watchdog watchdog = client.watchdog();
        long rearm = 0;
        for (BatchComponent.Member member : members) {
            if (watchdog.beforeRelease(member.protocol(), owner)) {
                rearm = watchdog.leaseMillis();
            }
        }
        long rearmMillis = rearm;
        List<List<BatchComponent.Member>> groups = groups();
        List<CompletableFuture<List<ReleaseOutcome>>> replies = new ArrayList<>(groups.size());
        for (List<BatchComponent.Member> group : groups) {
            releasing.merge(owner, 1, Integer::sum);
            replies.add(CompositeLocks.call(() -> calls.release(names(group), rearmMillis, owner))
                    .whenComplete((outcomes, failure) -> {
                        releasing.computeIfPresent(owner, (key, count) -> count > 1 ? count - 1 : null);
                        released(group, owner, outcomes, failure, heldBefore);
                    }));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new)).handle((ok, ignored) -> {
            Map<String, ReleaseOutcome> byName = new LinkedHashMap<>();
            Throwable first = null;
            for (int g = 0; g < groups.size(); g++) {
                CompletableFuture<List<ReleaseOutcome>> reply = replies.get(g);
                if (reply.isCompletedExceptionally()) {
                    Throwable failure = RedisErrors.unwrap(reply.handle((value, error) -> error).join());
                    if (first == null) {
                        first = failure;
                    } else if (failure != first) {
                        first.addSuppressed(failure);
                    }
                    continue;
                }
                List<BatchComponent.Member> group = groups.get(g);
                for (int i = 0; i < group.size(); i++) {
                    byName.put(group.get(i).protocol().name(), reply.join().get(i));
                }
            }
            if (first != null) {
                throw CompositeLocks.unchecked(first);
            }
            List<ReleaseOutcome> outcomes = new ArrayList<>(members.size());
            for (BatchComponent.Member member : members) {
                outcomes.add(byName.get(member.protocol().name()));
            }
            return outcomes;
        });
    }

    /**
     * One slot's release answered ({@code outcomes}) or failed: each component's renewal, view and
     * observer. A release whose reply was lost ends the owner's hold of a component only when it was
     * its last there (as one by one: what stays lasts until its lease runs out); with other holds of
     * the owner (of this multi lock, or through the component's view) they stay, and the one in doubt
     * is given back if Redis still counts it, against the owner's holds as they are then.
     */
    private void released(List<BatchComponent.Member> group, long owner, @Nullable List<ReleaseOutcome> outcomes,
            @Nullable Throwable failure, int heldBefore) {
        boolean lost = outcomes == null && RedisErrors.unwrap(castToNonNull(failure)) instanceof RedisUnavailableException;
        for (int i = 0; i < group.size(); i++) {
            BatchComponent.Member member = group.get(i);
            LockProtocol protocol = member.protocol();
            ReleaseOutcome outcome = outcomes == null ? null : outcomes.get(i);
            boolean inDoubt = lost && (heldBefore > 1 || queues.heldInView(protocol.localKey(), owner) != 0);
            boolean stillHeld = outcome == ReleaseOutcome.STILL_HELD || inDoubt;
            client.watchdog().afterRelease(protocol, owner, stillHeld);
            if (inDoubt) {
                client.abandonments().giveBackIfLanded(protocol, owner, () -> heldBesides(owner, protocol));
            } else if (!stillHeld) {
                queues.onReleasedElsewhere(protocol.localKey(), owner);
                holds.remove(owner); // a component it no longer holds: the rest goes one by one
            }
            Observing observing = member.observing();
            if (observing != null) {
                observing.release(outcome != null ? CompletableFuture.completedFuture(outcome)
                        : CompletableFuture.failedFuture(failure != null ? failure : new IllegalStateException()),
                        protocol, owner);
            }
        }
    }

    /**
     * The holds {@code owner} has of {@code protocol}'s lock now, as Redis should count them: this
     * multi lock's and those through the lock's view; not yet while a release of either is in flight.
     */
    private int heldBesides(long owner, LockProtocol protocol) {
        int inView = queues.heldInView(protocol.localKey(), owner);
        return releasing.containsKey(owner) ? HeldBefore.NOT_YET : inView < 0 ? inView : heldBy(owner) + inView;
    }

    /** {@code owner} released this multi lock one by one: one hold fewer taken by one call, if it had any. */
    void releasedOneByOne(long owner) {
        holds.computeIfPresent(owner, (key, count) -> count > 1 ? count - 1 : null);
    }

    /** The name and owner field of the first component whose outcome is {@code NOT_HELD}, for the exception. */
    @Nullable String firstNotHeld(List<ReleaseOutcome> outcomes, long owner) {
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == ReleaseOutcome.NOT_HELD) {
                LockProtocol protocol = members.get(i).protocol();
                return "lock '" + protocol.name() + "' is not held by " + protocol.ownerField(owner)
                        + " (never acquired, already unlocked, or its lease ran out)";
            }
        }
        return null;
    }

    /** The owner field of {@code owner}, for messages. */
    String ownerField(long owner) {
        return members.get(0).protocol().ownerField(owner);
    }

    // ---- groups

    /** The components by Cluster slot, in the multi lock's order within each; all together on one server. */
    private List<List<BatchComponent.Member>> groups() {
        if (!client.backend().isCluster()) {
            return List.of(members);
        }
        Map<Integer, List<BatchComponent.Member>> bySlot = new LinkedHashMap<>();
        for (BatchComponent.Member member : members) {
            bySlot.computeIfAbsent(RedisBackend.slot(member.protocol().name()), slot -> new ArrayList<>()).add(member);
        }
        return new ArrayList<>(bySlot.values());
    }

    private static List<String> names(List<BatchComponent.Member> group) {
        List<String> names = new ArrayList<>(group.size());
        for (BatchComponent.Member member : group) {
            names.add(member.protocol().name());
        }
        return names;
    }
}
