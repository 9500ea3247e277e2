package dev.padlock.internal.acquire;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.Claiming;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.redis.RedisErrors;
import io.netty.util.Timer;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What acquisitions whose caller gave up may have left on Redis, given back once Redis answers, so
 * that nothing stays for a caller that was told it failed:
 *
 * <ul>
 *   <li><b>Claims</b> given up on before Redis answered (a lost reply, then a timeout, an
 *       interrupt or a cancel): each may have landed, so each is given back with
 *       {@link Claiming#abandon}, retried until the claim's lease would have run out by
 *       itself.</li>
 *   <li><b>Other acquisitions</b> given up on in doubt (a re-entry; a fair, read or write hold):
 *       Redis is asked by hold count whether it landed, and one hold is given back if so
 *       ({@link #giveBackIfLanded}).</li>
 *   <li><b>Places in line</b> whose leave went unanswered ({@link #leaveAgain}): the leave is sent
 *       again until Redis answers it, or for {@link #PLACE_RETRY_MILLIS} at most.</li>
 * </ul>
 *
 * A call is sent again, with back-off, only while Redis does not answer it. Until it is answered
 * (or the retries stop) the same owner's next acquisition of the lock waits (see
 * {@link #pending}), so a give-back never removes a hold taken after it.
 *
 * <p>An acquisition cancelled while a call of it may be under way is held to the same rule
 * ({@link #awaitSettle}): whatever lands after the cancel is given back (a release, a give-back of
 * its claim) when its reply comes, so the owner's next acquisition of the lock waits until the
 * cancelled one has settled, or the give-back could remove the newer hold.
 */
public final class Abandonments {
    private static final Logger log = LoggerFactory.getLogger(Abandonments.class);
    private static final long MIN_RETRY_MILLIS = 10;
    private static final long MAX_RETRY_MILLIS = 500;
    /**
     * How long the leave of a place left behind is sent again while Redis does not answer: as long
     * as a grant message to that place is given back (see {@code GrantWaits}).
     */
    public static final long PLACE_RETRY_MILLIS = 5 * 60_000;

    private final ConcurrentHashMap<String, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    /** Cancelled acquisitions not settled yet, by lock and owner: see {@link #awaitSettle}. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> unsettled = new ConcurrentHashMap<>();
    /** Leaves being sent again: ended (exceptionally) by {@link #close()}. */
    private final Set<CompletableFuture<?>> leaving = ConcurrentHashMap.newKeySet();
    private final Timer timer;
    private final EngineClock clock;
    private final long commandTimeoutMillis;

    public Abandonments(Timer timer, EngineClock clock, long commandTimeoutMillis) {
        this.timer = timer;
        this.clock = clock;
        this.commandTimeoutMillis = commandTimeoutMillis;
    }

    /**
     * What {@code owner}'s next acquisition of the lock waits for: the give-back of its claim, or the
     * settling of its cancelled acquisition, while one is under way; else null.
     */
    public @Nullable CompletableFuture<Void> pending(LockProtocol protocol, long owner) {
        if (pending.isEmpty() && unsettled.isEmpty()) {
            return null;
        }
        String key = key(protocol, owner);
        CompletableFuture<Void> giveBack = pending.get(key);
        CompletableFuture<Void> settle = unsettled.get(key);
        if (settle == null || giveBack == null) {
            return settle == null ? giveBack : settle;
        }
        return CompletableFuture.allOf(giveBack, settle);
    }

    /**
     * {@code owner}'s acquisition of {@code protocol}'s lock was cancelled and has not settled: a
     * call of it may still land, and be given back when its reply comes. Until {@code settled}
     * completes, the owner's next acquisition of the lock waits ({@link #pending}). Call as the
     * cancel happens, before its caller can acquire again.
     */
    public void awaitSettle(LockProtocol protocol, long owner, CompletableFuture<Void> settled) {
        if (settled.isDone()) {
            return;
        }
        String key = key(protocol, owner);
        CompletableFuture<Void> entry = unsettled.compute(key, (k, previous) ->
                previous == null || previous.isDone() ? settled : CompletableFuture.allOf(previous, settled));
        entry.whenComplete((ignored, failure) -> unsettled.remove(key, entry));
    }

    /**
     * Gives back {@code owner}'s claim of {@code protocol}'s lock, whose outcome is unknown; call
     * before the caller learns that its acquisition failed. A kind that does not
     * {@linkplain LockProtocol#claiming() claim} has no claim to give back: nothing is sent.
     *
     * @param leaseMillis the lease the claim asked for: how long a landed claim can hold on by itself
     */
    public void abandon(LockProtocol protocol, long owner, long leaseMillis) {
        Claiming claiming = protocol.claiming();
        if (claiming == null) {
            return;
        }
        String key = key(protocol, owner);
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (pending.putIfAbsent(key, done) != null) {
            return; // one give-back removes every hold the owner's earlier claims left
        }
        resend(() -> claiming.abandon(owner), leaseMillis + 2 * commandTimeoutMillis).whenComplete((removed, failure) -> {
            if (failure == null && removed) {
                log.info("gave back lock '{}' of {}: its acquisition landed after its caller had been told it failed",
                        protocol.name(), protocol.ownerField(owner));
            } else if (failure != null && !(failure instanceof ClientClosing)) {
                log.warn("could not give back lock '{}' of {} after its acquisition's reply was lost; if it landed,"
                        + " its lease ends it: {}", protocol.name(), protocol.ownerField(owner), failure.toString());
            }
            finish(key, done);
        });
    }

    /**
     * Gives back {@code owner}'s acquisition of {@code protocol}'s lock that is no claim (a re-entry,
     * or a kind's first hold that adds to a count) and whose outcome is unknown, if it landed: once
     * Redis answers, it is asked whether the owner's hold count is above the holds the owner has
     * besides it ({@code heldBefore}), and one release is sent if so. Call before the caller learns
     * that its acquisition failed; the owner's next acquisition of the lock waits meanwhile.
     */
    public void giveBackIfLanded(LockProtocol protocol, long owner, HeldBefore heldBefore) {
        String key = key(protocol, owner);
        CompletableFuture<Void> done = new CompletableFuture<>();
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<Void>[] earlier = new CompletableFuture[1];
        CompletableFuture<Void> entry = pending.compute(key, (k, previous) -> {
            earlier[0] = previous == null || previous.isDone() ? null : previous;
            return earlier[0] == null ? done : CompletableFuture.allOf(earlier[0], done);
        });
        entry.whenComplete((ignored, failure) -> pending.remove(key, entry));
        if (earlier[0] == null) {
            giveBackWhenAnswered(protocol, owner, heldBefore, done);
        } else {
            // one after the other: two asking the count at once would each give back the same hold
            earlier[0].whenComplete((ignored, failure) -> giveBackWhenAnswered(protocol, owner, heldBefore, done));
        }
    }

    private void giveBackWhenAnswered(LockProtocol protocol, long owner, HeldBefore heldBefore,
            CompletableFuture<Void> done) {
        resend(() -> giveBackOnce(protocol, owner, heldBefore), PLACE_RETRY_MILLIS)
                .whenComplete((gaveBack, failure) -> {
                    if (failure == null && gaveBack) {
                        log.info("gave back a hold of lock '{}' by {} that its owner no longer counts (an acquisition"
                                + " given up in doubt that landed, or an unlock in doubt that did not)", protocol.name(),
                                protocol.ownerField(owner));
                    } else if (failure != null && !(failure instanceof ClientClosing)) {
                        log.warn("could not give back lock '{}' of {} after a reply was lost; a hold it no longer counts"
                                + " may stay until its lease ends: {}", protocol.name(), protocol.ownerField(owner),
                                failure.toString());
                    }
                    done.complete(null);
                });
    }

    /**
     * One try of {@link #giveBackIfLanded(LockProtocol, long, HeldBefore)}: failed with a
     * {@link RedisUnavailableException}, to be tried again, while the holds besides the one in doubt
     * cannot be told (a release or another acquisition of the owner in flight), or moved while Redis
     * was asked.
     */
    private static CompletableFuture<Boolean> giveBackOnce(LockProtocol protocol, long owner, HeldBefore heldBefore) {
        int before = heldBefore.count();
        if (before == HeldBefore.NOT_YET || before == HeldBefore.UNKNOWN) {
            return CompletableFuture.failedFuture(cannotTell(protocol, owner));
        }
        return protocol.confirmReentry(owner, before).thenCompose(found -> {
            if (heldBefore.count() != before) {
                return CompletableFuture.failedFuture(cannotTell(protocol, owner));
            }
            return !found.acquired() ? CompletableFuture.completedFuture(false)
                    : protocol.release(owner, 0).thenApply(release -> true);
        });
    }

    private static RedisUnavailableException cannotTell(LockProtocol protocol, long owner) {
        return new RedisUnavailableException("lock '" + protocol.name() + "': another release or acquisition by "
                + protocol.ownerField(owner) + " is in flight, so its hold count cannot tell yet whether the one"
                + " given up landed; asked again once it is answered", null);
    }

    /**
     * Sends {@code leave} again, with back-off, while Redis does not answer it: the call that takes
     * a place out of a lock's line went unanswered as its acquisition stopped. The first is sent
     * after the first pause; the acquisition, settled only once this completes, holds its owner's
     * next one back meanwhile ({@link #awaitSettle}).
     *
     * @return Redis's answer to the first leave it answered; failed with the last failure once the
     *     retries stop unanswered ({@link #PLACE_RETRY_MILLIS}), on Redis's own error answer, or as
     *     the client closes
     */
    public <T> CompletableFuture<T> leaveAgain(Supplier<CompletableFuture<T>> leave) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        leaving.add(answer);
        answer.whenComplete((ignored, failure) -> leaving.remove(answer));
        long giveUpAt = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PLACE_RETRY_MILLIS);
        Backoff retries = new Backoff(MIN_RETRY_MILLIS, MAX_RETRY_MILLIS);
        schedule(() -> send(leave, answer, giveUpAt, retries), retries.next(), answer);
        return answer;
    }

    /** {@code call}, sent at once and again while Redis does not answer, for {@code boundMillis}. */
    private <T> CompletableFuture<T> resend(Supplier<CompletableFuture<T>> call, long boundMillis) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        long giveUpAt = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        send(call, answer, giveUpAt, new Backoff(MIN_RETRY_MILLIS, MAX_RETRY_MILLIS));
        return answer;
    }

    private <T> void send(Supplier<CompletableFuture<T>> call, CompletableFuture<T> answer, long giveUpAt,
            Backoff retries) {
        if (answer.isDone()) {
            return; // the client closed
        }
        CompletableFuture<T> reply;
        try {
            reply = call.get();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((value, failure) -> {
            if (failure == null) {
                answer.complete(value);
            } else if (RedisErrors.unwrap(failure) instanceof RedisUnavailableException
                    && clock.nanoTime() - giveUpAt < 0) {
                schedule(() -> send(call, answer, giveUpAt, retries), retries.next(), answer);
            } else {
                answer.completeExceptionally(RedisErrors.unwrap(failure));
            }
        });
    }

    /** Runs {@code task} on the timer after {@code millis}; {@code answer} fails at once when the client is closing. */
    private void schedule(Runnable task, long millis, CompletableFuture<?> answer) {
        try {
            timer.newTimeout(timeout -> task.run(), millis, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException stopped) {
            answer.completeExceptionally(new ClientClosing());
        }
    }

    private void finish(String key, CompletableFuture<Void> done) {
        pending.remove(key, done);
        done.complete(null);
    }

    /** Give-backs under way; for tests and diagnostics. */
    int size() {
        return pending.size() + unsettled.size();
    }

    /** Lets every waiting owner go, and stops sending leaves again: the client is closing. */
    public void close() {
        pending.values().forEach(done -> done.complete(null));
        pending.clear();
        leaving.forEach(answer -> answer.completeExceptionally(new ClientClosing()));
        unsettled.clear();
    }

    /** Why a call was not sent again: the client is closing. */
    static final class ClientClosing extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        ClientClosing() {
            super("the LockClient is closed");
        }
    }

    private static String key(LockProtocol protocol, long owner) {
        return protocol.name() + '\n' + protocol.ownerField(owner);
    }
}
