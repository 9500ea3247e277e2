package dev.padlock.internal.protocol;

import dev.padlock.ReplicaAcknowledgementException;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lock kind whose acquisitions count only once enough replicas acknowledged them: after each
 * successful attempt, {@code WAIT} on the same connection; too few acknowledgements release the
 * acquisition again and fail it. Everything else is the wrapped kind's. It claims and grants when
 * the wrapped kind does, its claims and attempts in line acknowledged too; it never hands off
 * locally, whatever the wrapped kind does: a hand-off would skip the {@code WAIT}.
 */
public final class AcknowledgedLockProtocol implements LockProtocol {
    private final LockProtocol kind;
    private final ScriptRunner scripts;
    private final int replicas;
    private final long timeoutMillis;
    /** The kind's claims, acknowledged; null when it does not claim. */
    private final @Nullable Claiming claiming;
    /** The kind's line, its attempts and grants acknowledged; null when it does not grant. */
    private final @Nullable Granting granting;

    /** @param scripts a {@link ScriptRunner#pinned()} runner, the one {@code kind} sends with */
    public AcknowledgedLockProtocol(LockProtocol kind, ScriptRunner scripts, int replicas, long timeoutMillis) {
        this.kind = kind;
        this.scripts = scripts;
        this.replicas = replicas;
        this.timeoutMillis = timeoutMillis;
        Claiming claims = kind.claiming();
        this.claiming = claims == null ? null : new AcknowledgedClaims(claims);
        Granting grants = kind.granting();
        this.granting = grants == null ? null : new AcknowledgedGrants(grants);
    }

    /** The kind's claims, each counted once enough replicas acknowledged it. */
    private final class AcknowledgedClaims implements Claiming {
        private final Claiming claims;

        AcknowledgedClaims(Claiming claims) {
            this.claims = claims;
        }

        @Override
        public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait, long placeNonce,
                boolean inLine) {
            return acknowledged(claims.tryClaim(leaseMillis, threadId, willWait, placeNonce, inLine), threadId);
        }

        @Override
        public CompletableFuture<Boolean> abandon(long threadId) {
            return claims.abandon(threadId);
        }
    }

    /** The kind's line: its attempts, and a grant found as the owner gave up, count once acknowledged. */
    private final class AcknowledgedGrants implements Granting {
        private final Granting grants;

        AcknowledgedGrants(Granting grants) {
            this.grants = grants;
        }

        @Override
        public String grantChannel() {
            return grants.grantChannel();
        }

        @Override
        public char grantKind() {
            return grants.grantKind();
        }

        /** False: a grant message is not acknowledged by replicas; the owner's next attempt, which is, finds the grant. */
        @Override
        public boolean grantMessageConfirms() {
            return false;
        }

        @Override
        public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait,
                long placeNonce, boolean inLine, boolean newCount) {
            return acknowledged(grants.tryAcquire(leaseMillis, threadId, willWait, placeNonce, inLine, newCount),
                    threadId);
        }

        @Override
        public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
            return grants.leaveQueue(threadId, leaseMillis, placeNonce).thenCompose(held -> !held
                    ? CompletableFuture.completedFuture(false)
                    : acknowledged(CompletableFuture.completedFuture(Attempt.ACQUIRED), threadId)
                            .thenApply(Attempt::acquired));
        }

        @Override
        public CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
            return grants.noteGrantSince(threadId, elapsedMillis);
        }
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return acknowledged(kind.tryAcquire(leaseMillis, threadId, willWait), threadId);
    }

    @Override
    public @Nullable Claiming claiming() {
        return claiming;
    }

    @Override
    public @Nullable Granting granting() {
        return granting;
    }

    /** None: a hand-off would skip the {@code WAIT}. */
    @Override
    public @Nullable LocalHandOff localHandOff() {
        return null;
    }

    @Override
    public long maxParkMillis() {
        return kind.maxParkMillis();
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return acknowledged(kind.confirm(threadId), threadId);
    }

    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return acknowledged(kind.confirmReentry(threadId, heldBefore), threadId);
    }

    /** {@code reply}, once enough replicas acknowledged it when it says acquired. */
    private CompletableFuture<Attempt> acknowledged(CompletableFuture<Attempt> reply, long threadId) {
        return reply.thenCompose(attempt -> {
            if (!attempt.acquired()) {
                return CompletableFuture.completedFuture(attempt);
            }
            return scripts.waitForReplicas(name(), replicas, timeoutMillis).thenCompose(acknowledged -> {
                if (acknowledged >= replicas) {
                    return CompletableFuture.completedFuture(attempt);
                }
                ReplicaAcknowledgementException failure = new ReplicaAcknowledgementException("lock '" + name()
                        + "' at " + scripts.address() + ": acquired, but " + acknowledged + " of " + replicas
                        + " replica(s) acknowledged it within " + timeoutMillis + " ms; it was released again");
                return kind.release(threadId, 0).handle((released, releaseFailure) -> {
                    if (releaseFailure != null) {
                        failure.addSuppressed(releaseFailure);
                    }
                    throw failure;
                });
            });
        });
    }

    @Override
    public String name() {
        return kind.name();
    }

    @Override
    public String localKey() {
        return kind.localKey();
    }

    @Override
    public String ownerField(long threadId) {
        return kind.ownerField(threadId);
    }

    @Override
    public String unlockChannel(long threadId) {
        return kind.unlockChannel(threadId);
    }

    @Override
    public CompletableFuture<Void> leaveQueue(long threadId) {
        return kind.leaveQueue(threadId);
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        return kind.release(threadId, rearmLeaseMillis);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return kind.forceRelease();
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return kind.isLocked();
    }

    @Override
    public LuaScript renewScript() {
        return kind.renewScript();
    }

    @Override
    public String[] renewKeys(long threadId) {
        return kind.renewKeys(threadId);
    }
}
