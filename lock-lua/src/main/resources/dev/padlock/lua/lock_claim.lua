-- lock_claim: take a reentrant lock for an owner that holds none of it, as far as its caller knows.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- KEYS[2]  the holders' since, padlock_since:{<name>}: a hash of owner field -> epoch ms (Redis
--          TIME) at which that owner got its hold; expires with the lock
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
-- "Since" is Redis TIME in epoch milliseconds; TIME is not deterministic, so the writes after
-- it replicate as their effects (the default since Redis 5, asked for on a 6.x server set up
-- for verbatim replication).
if redis.replicate_commands then
    redis.replicate_commands()
end
local function now_millis()
    local t = redis.call('time')
    return t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('hset', KEYS[2], ARGV[2], now_millis())
    redis.call('pexpire', KEYS[2], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
