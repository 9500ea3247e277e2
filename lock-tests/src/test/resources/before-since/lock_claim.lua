-- lock_claim: take a reentrant lock for an owner that holds none of it, as far as its caller knows.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
--
-- Returns  nil when acquired: the lock was free, or it already carried the owner's field (this
--          same claim, sent again after its reply was lost, or a claim its caller gave up on);
--          either way the owner now holds it exactly once, so a claim may be sent again safely.
--          Otherwise the lock's PTTL in milliseconds (-1 when it has no expiry).
-- Publishes nothing.
--
-- The format is Redisson's RLock format; a re-entry by a holder goes through lock_acquire.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
