package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.Claiming;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LocalHandOff;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.script.ScriptRunner;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * An exclusive kind that records each call it would send to Redis instead of sending it; the test
 * answers each call when it says so. Everything runs on the test's thread, so a call is recorded by
 * the time the method that sends it returns.
 */
final class RecordingLock implements LockProtocol, Claiming, Granting, LocalHandOff {
    private final String name;
    private final boolean grants;
    final List<Call> calls = new CopyOnWriteArrayList<>();

    RecordingLock(String name) {
        this(name, false);
    }

    /** With {@code grants}: a claim that waits records its place nonce as {@link Call#to}. */
    RecordingLock(String name, boolean grants) {
        this.name = name;
        this.grants = grants;
    }

    /** The oldest unanswered call, which must be {@code op} by {@code owner}. */
    Call next(String op, long owner) {
        assertThat(calls).as("a call was sent").isNotEmpty();
        Call call = calls.remove(0);
        assertThat(call.op + " " + call.owner).isEqualTo(op + " " + owner);
        return call;
    }

    /** Asserts that nothing was sent since the last call taken. */
    void sentNothing() {
        assertThat(calls).as("nothing sent").isEmpty();
    }

    private <T> CompletableFuture<T> record(String op, long owner, long to) {
        Call call = new Call(op, owner, to);
        calls.add(call);
        return call.reply();
    }

    @Override
    public @Nullable Granting granting() {
        return grants ? this : null;
    }

    @Override
    public char grantKind() {
        return GrantKind.PLAIN;
    }

    @Override
    public boolean grantMessageConfirms() {
        return true;
    }

    /** An attempt in line is recorded as {@code acquire}, as a plain one. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        return tryAcquire(leaseMillis, threadId, willWait);
    }

    /** Sends nothing, as {@link #leaveQueue(long)}: finds no grant. */
    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return leaveQueue(threadId).thenApply(left -> false);
    }

    /** The place nonce the last release put this client back in line with (0: none). */
    volatile long lastNextPlaceNonce;

    @Override
    public String grantChannel() {
        return grants ? "grants" : null;
    }

    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return record("claim", threadId, willWait ? placeNonce : 0);
    }

    @Override
    public <R> CompletableFuture<R> release(long threadId, long rearmLeaseMillis, long nextThreadId,
            long nextLeaseMillis, long nextPlaceNonce, BiFunction<? super Release, Throwable, R> handler) {
        lastNextPlaceNonce = nextPlaceNonce;
        return this.<Release>record("release", threadId, nextThreadId).handle(handler);
    }

    /** A claim when {@code fresh}, else an attempt, as the plain lock's first attempt. */
    @Override
    public <R> CompletableFuture<R> firstAttempt(long leaseMillis, long threadId, boolean fresh, boolean willWait,
            BiFunction<? super Attempt, Throwable, R> handler) {
        CompletableFuture<Attempt> attempt = fresh ? tryClaim(leaseMillis, threadId, willWait, 0, false)
                : tryAcquire(leaseMillis, threadId, willWait);
        return attempt.handle(handler);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String ownerField(long threadId) {
        return "c:" + threadId;
    }

    @Override
    public String unlockChannel(long threadId) {
        return "channel";
    }

    @Override
    public boolean queuesLocally() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return record("acquire", threadId, 0);
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return record("abandon", threadId, 0);
    }

    /** Recorded as {@code renew}. */
    @Override
    public CompletableFuture<Boolean> renew(ScriptRunner scripts, long threadId, long leaseMillis) {
        return record("renew", threadId, 0);
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return record("confirm", threadId, 0);
    }

    /** Recorded as {@code confirmReentry}, with the holds the owner has besides it as {@link Call#to}. */
    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return record("confirmReentry", threadId, heldBefore);
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return record("release", threadId, 0);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> handOff(long fromThreadId, long toThreadId, long leaseMillis,
            long rearmLeaseMillis) {
        return record("handoff", fromThreadId, toThreadId);
    }

    /** Recorded as {@code since}, with how long the owner held (ms) as {@link Call#to}. */
    @Override
    public CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis) {
        return record("since", threadId, heldForMillis);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return record("forceRelease", 0, 0);
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return record("isLocked", 0, 0);
    }

    /** A call the queue sent; the test answers it. */
    static final class Call {
        final String op;
        final long owner;
        /**
         * The successor of a hand-off, the owner put back in line by a release, a claim's place
         * nonce, or how long a since note's owner held (ms).
         */
        final long to;
        final CompletableFuture<Object> reply = new CompletableFuture<>();

        Call(String op, long owner, long to) {
            this.op = op;
            this.owner = owner;
            this.to = to;
        }

        void answer(Object value) {
            reply.complete(value);
        }

        void fail(Throwable failure) {
            reply.completeExceptionally(failure);
        }

        @SuppressWarnings("unchecked")
        <T> CompletableFuture<T> reply() {
            return (CompletableFuture<T>) (CompletableFuture<?>) reply;
        }

        @Override
        public String toString() {
            return op + " " + owner + (to == 0 ? "" : " -> " + to);
        }
    }
}
