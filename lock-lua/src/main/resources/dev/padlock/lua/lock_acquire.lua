-- lock_acquire: take a reentrant lock, or re-enter it, and arm its lease.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- KEYS[2]  the holders' since, padlock_since:{<name>} (see lock_since): a re-entry re-arms it
--          with the lock, so that an entry lives as long as the lock
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
--
-- Returns  nil when acquired (a first hold, with lease ARGV[1]; or a re-entry, which sets a TTL of
--          at least ARGV[1] and never shortens the one the owner's other holds have),
--          otherwise the lock's PTTL in milliseconds (-1 when it has no expiry).
-- Publishes nothing.
--
-- The format is Redisson's RLock format, so both libraries exclude each other. A first hold is
-- the three calls the format needs (EXISTS, HSET, PEXPIRE); its since is noted later, by its
-- client, once the hold has lasted (lock_since).
-- sets a TTL of at least ms on key, never a shorter one than it has, so a hold whose own lease is
-- longer keeps it: PEXPIRE GT (Redis 7), else (no GT on 6.2; or no TTL, which GT takes for the
-- longest) what PTTL says
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if not ok or set == 0 then
        local ttl = redis.call('pttl', key)
        if ttl == -1 or (ttl >= 0 and ttl < tonumber(ms)) then
            redis.call('pexpire', key, ms)
        end
    end
end
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    extend(KEYS[1], ARGV[1])
    extend(KEYS[2], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
