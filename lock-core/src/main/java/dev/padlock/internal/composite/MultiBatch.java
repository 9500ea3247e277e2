package dev.padlock.internal.composite;

import dev.padlock.RLock;
import dev.padlock.internal.acquire.AcquireContext;
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
 * names ({@link #of}). A first hold is one call only while this client's local view of every
 * component is idle ({@link LocalQueues#idle}: none of its owners holds, acquires, releases or waits
 * for it), the owner holds none of them as this client counts, and no give-back of an earlier
 * acquisition of the owner is under way ({@link #mayAcquire}): then it is a claim of every lock, all
 * or nothing on Redis. From then on, while the owner holds the multi lock so, its re-entries and
 * releases of it are one call too, and never one by one: the views do not count these holds, so a
 * component released through its view would be counted twice or not at all.
 *
 * <p><b>What a miss does.</b> A lock held by another owner (a Padlock or Redisson field) makes the
 * call write nothing; on a Cluster the slots that were taken are given back before anything else is
 * sent. A first hold then runs its one-by-one round, which waits as it always did; a re-entry tries
 * again ({@link MultiLockAcquisition}). A reply that was lost is given back: a claim by each lock's
 * claim give-back, a re-entry by one release where Redis counts more than the owner's holds
 * ({@code Abandonments}); the caller is never told it holds on a reply that did not come, nor on one
 * read after the lease it asked for could have run out.
 *
 * <p><b>Bookkeeping.</b> Held, each component is what a single acquisition leaves, but round the
 * view: the client counts the owner's holds of it taken so ({@link LocalQueues#batchCallStarted},
 * {@link LocalQueues#onBatchHeld}), so that the owner's own acquisitions of the component through
 * other lock objects re-enter, and a give-back in doubt, here or in the view, compares Redis's count
 * with all the owner's holds as they are when Redis answers ({@link LocalQueues#heldBesides}). Others
 * of the client find it held on Redis and wait for its unlock message. The watchdog renews it (its
 * rounds batch renewals per server already), and the observer hears of each component's hold. A
 * release drops one hold of each component still counted (one told lost, or found gone, is not sent)
 * and ends or keeps each renewal as the one-by-one release would.
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
     * The components' local keys, in order: what this client counts an owner's holds of this multi
     * lock by ({@link LocalQueues#multiHolds}), all taken by one call (a first hold, then re-entries,
     * round the local views), whichever multi lock object of these components took them. While the
     * owner has any, every acquisition and release of it by the owner is one call ({@link #mayAcquire},
     * {@link #mayRelease}), never one by one: the views count none of these holds ({@link
     * LocalQueues#batchHolds} does, per component).
     */
    private final List<String> localKeys;
    private final AcquireContext client;
    private final LocalQueues queues;
    private final MultiLockCalls calls;

    private MultiBatch(List<BatchComponent.Member> members) {
        this.members = members;
        this.client = members.get(0).client();
        this.queues = members.get(0).queues();
        this.calls = new MultiLockCalls(client);
        this.localKeys = members.stream().map(member -> member.protocol().localKey()).toList();
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

    /** Whether {@code owner} holds this multi lock by one call: its acquisitions and releases of it are one call then. */
    boolean holdsByBatch(long owner) {
        return heldBy(owner) > 0;
    }

    /** How many holds of this multi lock {@code owner} took by one call and has not released. */
    private int heldBy(long owner) {
        return queues.multiHolds(localKeys, owner);
    }

    // ---- acquire

    /**
     * Whether an acquisition by {@code owner} is one call now: always while it holds this multi
     * lock by one call (a re-entry); else a first hold only where this client's views of the
     * components are idle, the owner holds none of them (as this client counts), and no give-back
     * of an earlier acquisition of the owner is under way.
     */
    boolean mayAcquire(long owner) {
        if (client.wakeUps().isClosed()) {
            return false; // the one-by-one path says so
        }
        if (holdsByBatch(owner)) {
            return true;
        }
        for (BatchComponent.Member member : members) {
            String key = member.protocol().localKey();
            if (!queues.idle(key) || queues.counts(key, owner) || client.abandonments().pending(member.protocol(), owner) != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Claims (or, while the owner holds this multi lock by one call, re-enters) every component for
     * {@code owner}; {@link Taken#ALL} once it holds them all, with the bookkeeping done. Otherwise
     * nothing is left behind (or its give-back is under way): a component was held elsewhere, or a
     * reply was lost or came too late. Never fails.
     *
     * @param leaseMillis fixed, or {@link LeaseMillis#WATCHDOG}
     * @param waitNanos the multi lock's wait, as the observer is told it
     */
    CompletableFuture<Taken> acquire(long owner, long leaseMillis, long waitNanos) {
        long ttlMillis = LeaseMillis.ttlMillis(leaseMillis, client.watchdog().leaseMillis());
        boolean reentry = holdsByBatch(owner);
        List<List<BatchComponent.Member>> groups = groups(members);
        List<CompletableFuture<Integer>> replies = new ArrayList<>(groups.size());
        members.forEach(member -> queues.batchCallStarted(member.protocol().localKey(), owner));
        long sentNanos = client.clock().nanoTime();
        for (List<BatchComponent.Member> group : groups) {
            replies.add(CompositeLocks.call(() -> reentry ? calls.reenter(names(group), ttlMillis, owner)
                    : calls.claim(names(group), ttlMillis, owner)));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new)).handle((ok, ignored) -> null)
                .thenCompose(answered -> {
                    boolean allHeld = replies.stream().allMatch(reply -> !reply.isCompletedExceptionally()
                            && reply.join() == MultiLockCalls.ALL_HELD);
                    boolean inTime = client.clock().nanoTime() - LeaseClock.endOf(sentNanos, ttlMillis) < 0;
                    if (allHeld && inTime) {
                        queues.onMultiHeld(localKeys, owner, 1);
                        held(owner, leaseMillis, sentNanos, waitNanos);
                        return CompletableFuture.completedFuture(Taken.ALL);
                    }
                    boolean elsewhere = !allHeld && replies.stream().noneMatch(CompletableFuture::isCompletedExceptionally);
                    if (allHeld) {
                        log.debug("'{}' and the other components: the reply came after their lease could have run out;"
                                + " giving them back", members.get(0).protocol().name());
                    }
                    return giveBack(groups, replies, owner, ttlMillis, reentry).thenApply(clean -> {
                        members.forEach(member -> queues.batchCallEnded(member.protocol().localKey(), owner, 0));
                        return elsewhere && clean ? Taken.HELD_ELSEWHERE : Taken.NONE;
                    });
                });
    }

    /** Every component is held: the bookkeeping a single acquisition leaves (see the class notes). */
    private void held(long owner, long leaseMillis, long sentNanos, long waitNanos) {
        Watchdog watchdog = client.watchdog();
        for (BatchComponent.Member member : members) {
            LockProtocol protocol = member.protocol();
            queues.onBatchHeld(protocol.localKey(), owner, leaseMillis);
            watchdog.onAcquired(protocol, owner, leaseMillis, sentNanos);
            Observing observing = member.observing();
            if (observing != null) {
                observing.started(HELD, protocol, member.kind(), owner, waitNanos, sentNanos);
            }
        }
    }

    /**
     * Gives back what a call that is not taken as held may have left: the slots it took are released,
     * the components of a slot whose reply was lost (or whose release failed) are given back by their
     * give-backs. Completes once the releases were answered: whether they all were.
     */
    private CompletableFuture<Boolean> giveBack(List<List<BatchComponent.Member>> groups,
            List<CompletableFuture<Integer>> replies, long owner, long ttlMillis, boolean reentry) {
        List<CompletableFuture<List<ReleaseOutcome>>> releases = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            List<BatchComponent.Member> group = groups.get(g);
            CompletableFuture<Integer> reply = replies.get(g);
            if (reply.isCompletedExceptionally()) {
                abandon(group, owner, ttlMillis, reentry);
            } else if (reply.join() == MultiLockCalls.ALL_HELD) {
                releases.add(CompositeLocks.call(() -> calls.release(names(group), 0, owner)).whenComplete(
                        (outcomes, failure) -> {
                            if (failure != null) {
                                abandon(group, owner, ttlMillis, reentry);
                            }
                        }));
            }
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new)).handle((ok, failure) -> failure == null);
    }

    /**
     * Gives back what a call in doubt may have added on {@code group}: a claim by the claim's
     * give-back; a re-entry by one release where Redis counts more than the owner's holds then
     * (through the view and round it, as this client counts them once this call has ended).
     */
    private void abandon(List<BatchComponent.Member> group, long owner, long ttlMillis, boolean reentry) {
        for (BatchComponent.Member member : group) {
            LockProtocol protocol = member.protocol();
            if (reentry) {
                client.abandonments().giveBackIfLanded(protocol, owner, () -> queues.heldBesides(protocol.localKey(), owner));
            } else {
                client.abandonments().abandon(protocol, owner, ttlMillis);
            }
        }
    }

    // ---- release

    /** Whether {@code owner}'s unlock is one call: while it holds this multi lock by one call. */
    boolean mayRelease(long owner) {
        return holdsByBatch(owner) && !client.wakeUps().isClosed();
    }

    /**
     * Drops one hold of {@code owner} on every component it holds so, with the bookkeeping a single
     * release does around it; each component's outcome, in the multi lock's order (a component whose
     * holds this client no longer counts, told lost or found gone, is {@code NOT_HELD} and not sent).
     * Fails (once every call answered) with the first failure.
     */
    CompletableFuture<List<ReleaseOutcome>> release(long owner) {
        int heldBefore = heldBy(owner);
        queues.onMultiHeld(localKeys, owner, -1);
        Watchdog watchdog = client.watchdog();
        List<BatchComponent.Member> sent = new ArrayList<>(members.size());
        boolean allRenewed = true;
        for (BatchComponent.Member member : members) {
            String key = member.protocol().localKey();
            if (queues.batchHolds(key, owner) != 0) {
                sent.add(member);
                allRenewed &= watchdog.beforeRelease(member.protocol(), owner);
                queues.batchCallStarted(key, owner);
            }
        }
        long rearmMillis = allRenewed ? watchdog.leaseMillis() : 0; // else the watchdog renews those it does
        List<List<BatchComponent.Member>> groups = groups(sent);
        List<CompletableFuture<List<ReleaseOutcome>>> replies = new ArrayList<>(groups.size());
        for (List<BatchComponent.Member> group : groups) {
            replies.add(CompositeLocks.call(() -> calls.release(names(group), rearmMillis, owner))
                    .whenComplete((outcomes, failure) -> released(group, owner, outcomes, failure, heldBefore)));
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
                outcomes.add(byName.getOrDefault(member.protocol().name(), ReleaseOutcome.NOT_HELD));
            }
            return outcomes;
        });
    }

    /**
     * One slot's release answered ({@code outcomes}) or failed: each component's count, renewal, view
     * and observer. A release that failed ends the owner's hold of a component only when it was its
     * last there as this client counts (as one by one: what stays lasts until its lease runs out);
     * with other holds of the owner (of this multi lock, others, or through the component's view) they
     * stay, and the one in doubt is given back if Redis still counts it, against the owner's holds as
     * they are when Redis answers.
     */
    private void released(List<BatchComponent.Member> group, long owner, @Nullable List<ReleaseOutcome> outcomes,
            @Nullable Throwable failure, int heldBefore) {
        for (int i = 0; i < group.size(); i++) {
            BatchComponent.Member member = group.get(i);
            LockProtocol protocol = member.protocol();
            String key = protocol.localKey();
            queues.batchCallEnded(key, owner, -1);
            ReleaseOutcome outcome = outcomes == null ? null : outcomes.get(i);
            if (outcome == null) {
                boolean others = heldBefore > 1 || queues.heldBesides(key, owner) != 0;
                client.watchdog().afterRelease(protocol, owner, others);
                if (others) {
                    client.abandonments().giveBackIfLanded(protocol, owner, () -> queues.heldBesides(key, owner));
                }
            } else {
                boolean stillHeld = outcome == ReleaseOutcome.STILL_HELD;
                client.watchdog().afterRelease(protocol, owner, stillHeld);
                if (!stillHeld) {
                    queues.onReleasedElsewhere(key, owner); // no field of the owner left: nothing to count
                }
            }
            Observing observing = member.observing();
            if (observing != null) {
                observing.release(outcome != null ? CompletableFuture.completedFuture(outcome)
                        : CompletableFuture.failedFuture(failure != null ? failure : new IllegalStateException()),
                        protocol, owner);
            }
        }
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

    /** {@code some} by Cluster slot, in the multi lock's order within each; all together on one server (none when empty). */
    private List<List<BatchComponent.Member>> groups(List<BatchComponent.Member> some) {
        if (some.isEmpty() || !client.backend().isCluster()) {
            return some.isEmpty() ? List.of() : List.of(some);
        }
        Map<Integer, List<BatchComponent.Member>> bySlot = new LinkedHashMap<>();
        for (BatchComponent.Member member : some) {
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
