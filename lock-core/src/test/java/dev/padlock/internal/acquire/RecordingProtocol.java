package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.protocol.Claiming;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.script.ScriptRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lock kind that records every call it would send to Redis and answers one only when the test
 * says so ({@link Call#answer}, {@link Call#lose}). Everything runs on the test's thread: a call is
 * recorded as it is made, and an answer runs what waits on it before it returns. Not thread-safe.
 */
public final class RecordingProtocol implements LockProtocol, Claiming, Granting {
    private final String name;
    private final List<Call> calls = new ArrayList<>();
    private boolean claims;
    private boolean grants;
    private boolean grantMessageConfirms;
    private char grantKind = GrantKind.PLAIN;
    private long maxParkMillis = Long.MAX_VALUE;
    private RuntimeException throwOnAttempt;

    public RecordingProtocol(String name) {
        this.name = name;
    }

    /** One call as sent: what it asked, and its reply for the test to complete. */
    public static final class Call {
        public final String op;
        public final long owner;
        public final long leaseMillis;
        public final boolean willWait;
        /** The place nonce an attempt or a leave sent; 0 for none. */
        public final long nonce;
        public final boolean inLine;
        private final CompletableFuture<Object> reply = new CompletableFuture<>();

        Call(String op, long owner, long leaseMillis, boolean willWait, long nonce, boolean inLine) {
            this.op = op;
            this.owner = owner;
            this.leaseMillis = leaseMillis;
            this.willWait = willWait;
            this.nonce = nonce;
            this.inLine = inLine;
        }

        public void answer(Object value) {
            reply.complete(value);
        }

        public void fail(Throwable failure) {
            reply.completeExceptionally(failure);
        }

        /** The reply is lost: the call may or may not have landed. */
        public void lose() {
            fail(new RedisUnavailableException("orders: connection reset", null));
        }

        public boolean answered() {
            return reply.isDone();
        }

        @SuppressWarnings("unchecked")
        <T> CompletableFuture<T> reply() {
            return (CompletableFuture<T>) (CompletableFuture<?>) reply;
        }

        @Override
        public String toString() {
            return op + " " + owner + (nonce != 0 ? " #" + nonce : "");
        }
    }

    /** First holds are claims ({@link #tryClaim}), given back by {@link #abandon}. */
    public RecordingProtocol claims() {
        this.claims = true;
        return this;
    }

    /**
     * Failed attempts that will wait take a place in line and a release may grant it; the grant
     * message alone tells its owner it holds when {@code messageConfirms}.
     */
    public RecordingProtocol granting(char kind, boolean messageConfirms) {
        this.grants = true;
        this.grantKind = kind;
        this.grantMessageConfirms = messageConfirms;
        return this;
    }

    public RecordingProtocol maxParkMillis(long millis) {
        this.maxParkMillis = millis;
        return this;
    }

    /** The next attempts throw {@code failure} instead of sending anything. */
    public RecordingProtocol throwOnAttempt(RuntimeException failure) {
        this.throwOnAttempt = failure;
        return this;
    }

    /** The oldest unanswered call, which must be {@code op}. */
    public Call next(String op) {
        assertThat(calls).as("a call was sent").isNotEmpty();
        Call call = calls.remove(0);
        assertThat(call.op).as("the next call").isEqualTo(op);
        return call;
    }

    /** Calls sent and not yet taken by {@link #next}. */
    public List<Call> calls() {
        return calls;
    }

    /** Whether a call was sent that the test has not taken yet. */
    public boolean sent() {
        return !calls.isEmpty();
    }

    private <T> CompletableFuture<T> record(String op, long owner, long leaseMillis, boolean willWait, long nonce,
            boolean inLine) {
        Call call = new Call(op, owner, leaseMillis, willWait, nonce, inLine);
        calls.add(call);
        return call.reply();
    }

    private <T> CompletableFuture<T> attempt(String op, long owner, long leaseMillis, boolean willWait, long nonce,
            boolean inLine) {
        if (throwOnAttempt != null) {
            throw throwOnAttempt;
        }
        return record(op, owner, leaseMillis, willWait, nonce, inLine);
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
        return "unlock:" + name;
    }

    @Override
    public @Nullable Claiming claiming() {
        return claims ? this : null;
    }

    @Override
    public @Nullable Granting granting() {
        return grants ? this : null;
    }

    @Override
    public boolean grantMessageConfirms() {
        return grantMessageConfirms;
    }

    @Override
    public String grantChannel() {
        return grants ? "grants:c" : null;
    }

    @Override
    public char grantKind() {
        return grantKind;
    }

    @Override
    public long maxParkMillis() {
        return maxParkMillis;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return attempt("acquire", threadId, leaseMillis, willWait, 0, false);
    }

    /** Recorded as {@code acquire}, or as {@code acquireNewCount} when it starts a new count. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        return attempt(newCount ? "acquireNewCount" : "acquire", threadId, leaseMillis, willWait, placeNonce, inLine);
    }

    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return attempt("claim", threadId, leaseMillis, willWait, placeNonce, inLine);
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return record("abandon", threadId, 0, false, 0, false);
    }

    /** Recorded as {@code renew}, with the lease it sets. */
    @Override
    public CompletableFuture<Boolean> renew(ScriptRunner scripts, long threadId, long leaseMillis) {
        return record("renew", threadId, leaseMillis, false, 0, false);
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return record("confirm", threadId, 0, false, 0, false);
    }

    /** Recorded as {@code confirmReentry}, with the holds the owner has besides it as {@link Call#leaseMillis}. */
    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return record("confirmReentry", threadId, heldBefore, false, 0, false);
    }

    @Override
    public CompletableFuture<Void> leaveQueue(long threadId) {
        return record("leave", threadId, 0, false, 0, false);
    }

    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return record("leave", threadId, leaseMillis, false, placeNonce, false);
    }

    @Override
    public CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
        return record("noteSince", threadId, elapsedMillis, false, 0, false);
    }

    /** Recorded as {@code release}, with the lease to re-arm as its {@link Call#leaseMillis}. */
    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return record("release", threadId, rearmLeaseMillis, false, 0, false);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return record("forceRelease", 0, 0, false, 0, false);
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return record("isLocked", 0, 0, false, 0, false);
    }
}
