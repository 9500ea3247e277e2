-- lock_acquire: take a reentrant lock, or re-enter it, and arm its lease.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- KEYS[2]  the holders' since, padlock_since:{<name>} (see lock_claim): a first hold sets its
--          owner's entry, a re-entry keeps it; both take the lock's lease
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
--
-- Returns  nil when acquired (first hold or re-entry; the lease is re-armed),
--          otherwise the lock's PTTL in milliseconds (-1 when it has no expiry).
-- Publishes nothing.
--
-- The format is Redisson's RLock format, so both libraries exclude each other.
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
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('hset', KEYS[2], ARGV[2], now_millis())
    redis.call('pexpire', KEYS[2], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('pexpire', KEYS[2], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
