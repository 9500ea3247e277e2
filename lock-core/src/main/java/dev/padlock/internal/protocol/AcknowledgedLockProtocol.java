package dev.padlock.internal.protocol;

import dev.padlock.ReplicaAcknowledgementException;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lock kind whose acquisitions count only once enough replicas acknowledged them: after each
 * successful attempt, {@code WAIT} on the same connection; too few acknowledgements release the
 * acquisition again and fail it. Everything else is the wrapped kind's. No local hand-off: a
 * hand-off would skip the {@code WAIT}.
 */
public final class AcknowledgedLockProtocol implements LockProtocol {
    private final LockProtocol kind;
    private final ScriptRunner scripts;
    private final int replicas;
    private final long timeoutMillis;

    /** @param scripts a {@link ScriptRunner#pinned()} runner, the one {@code kind} sends with */
    public AcknowledgedLockProtocol(LockProtocol kind, ScriptRunner scripts, int replicas, long timeoutMillis) {
        this.kind = kind;
        this.scripts = scripts;
        this.replicas = replicas;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return acknowledged(kind.tryAcquire(leaseMillis, threadId, willWait), threadId);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine) {
        return acknowledged(kind.tryAcquire(leaseMillis, threadId, willWait, placeNonce, inLine), threadId);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        return acknowledged(kind.tryAcquire(leaseMillis, threadId, willWait, placeNonce, inLine, newCount), threadId);
    }

    @Override
    public boolean grants() {
        return kind.grants();
    }

    /** False: a grant message is not acknowledged by replicas; the owner's next attempt, which is, finds the grant. */
    @Override
    public boolean grantMessageConfirms() {
        return false;
    }

    @Override
    public @Nullable String grantChannel() {
        return kind.grantChannel();
    }

    @Override
    public char grantKind() {
        return kind.grantKind();
    }

    @Override
    public CompletableFuture<Boolean> noteGrantSince(long threadId, long elapsedMillis) {
        return kind.noteGrantSince(threadId, elapsedMillis);
    }

    @Override
    public long maxParkMillis() {
        return kind.maxParkMillis();
    }

    /** A grant found as the owner gave up counts, like an attempt's, once enough replicas acknowledged it. */
    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        return kind.leaveQueue(threadId, leaseMillis, placeNonce).thenCompose(held -> !held
                ? CompletableFuture.completedFuture(false)
                : acknowledged(CompletableFuture.completedFuture(Attempt.ACQUIRED), threadId).thenApply(Attempt::acquired));
    }

    @Override
    public boolean claims() {
        return kind.claims();
    }

    @Override
    public CompletableFuture<Attempt> tryClaim(long leaseMillis, long threadId, boolean willWait) {
        return acknowledged(kind.tryClaim(leaseMillis, threadId, willWait), threadId);
    }

    @Override
    public CompletableFuture<Boolean> abandon(long threadId) {
        return kind.abandon(threadId);
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
    public CompletableFuture<Boolean> noteSince(long threadId, long heldForMillis) {
        return kind.noteSince(threadId, heldForMillis);
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
