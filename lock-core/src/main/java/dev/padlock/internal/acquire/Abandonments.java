package dev.padlock.internal.acquire;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.redis.RedisErrors;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims whose caller gave up on them before Redis answered (a lost reply, then a timeout, an
 * interrupt or a cancel): each may have landed, so each is given back with
 * {@link LockProtocol#abandon} once Redis answers, and nothing is left on Redis for a caller that
 * was told it failed. Until then the same owner's next acquisition of the lock waits (see
 * {@link #pending}), so a give-back never removes a hold taken after it.
 *
 * <p>A give-back is retried while Redis does not answer, with back-off, until the claim's lease
 * would have run out by itself; then the owner is let go.
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

    private final ConcurrentHashMap<String, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    /** Cancelled acquisitions not settled yet, by lock and owner: see {@link #awaitSettle}. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> unsettled = new ConcurrentHashMap<>();
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
    public CompletableFuture<Void> pending(LockProtocol protocol, long owner) {
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
     * before the caller learns that its acquisition failed.
     *
     * @param leaseMillis the lease the claim asked for: how long a landed claim can hold on by itself
     */
    public void abandon(LockProtocol protocol, long owner, long leaseMillis) {
        String key = key(protocol, owner);
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (pending.putIfAbsent(key, done) != null) {
            return; // one give-back removes every hold the owner's earlier claims left
        }
        long giveUpAt = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis + 2 * commandTimeoutMillis);
        send(protocol, owner, key, done, giveUpAt, new Backoff(MIN_RETRY_MILLIS, MAX_RETRY_MILLIS));
    }

    private void send(LockProtocol protocol, long owner, String key, CompletableFuture<Void> done, long giveUpAt,
            Backoff retries) {
        CompletableFuture<Boolean> reply;
        try {
            reply = protocol.abandon(owner);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((removed, failure) -> {
            if (failure == null) {
                if (removed) {
                    log.info("gave back lock '{}' of {}: its acquisition landed after its caller had been told it"
                            + " failed", protocol.name(), protocol.ownerField(owner));
                }
                finish(key, done);
            } else if (RedisErrors.unwrap(failure) instanceof RedisUnavailableException
                    && clock.nanoTime() - giveUpAt < 0) {
                try {
                    timer.newTimeout(timeout -> send(protocol, owner, key, done, giveUpAt, retries), retries.next(),
                            TimeUnit.MILLISECONDS);
                } catch (IllegalStateException stopped) {
                    finish(key, done); // the client is closing
                }
            } else {
                log.warn("could not give back lock '{}' of {} after its acquisition's reply was lost; if it landed,"
                        + " its lease ends it: {}", protocol.name(), protocol.ownerField(owner), failure.toString());
                finish(key, done);
            }
        });
    }

    private void finish(String key, CompletableFuture<Void> done) {
        pending.remove(key, done);
        done.complete(null);
    }

    /** Give-backs under way; for tests and diagnostics. */
    int size() {
        return pending.size() + unsettled.size();
    }

    /** Lets every waiting owner go: the client is closing. */
    public void close() {
        pending.values().forEach(done -> done.complete(null));
        pending.clear();
        unsettled.clear();
    }

    private static String key(LockProtocol protocol, long owner) {
        return protocol.name() + '\n' + protocol.ownerField(owner);
    }
}
