-- lock_acquire: take a reentrant lock, or re-enter it, and arm its lease.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
--
-- Returns  nil when acquired (first hold or re-entry; the lease is re-armed),
--          otherwise the lock's PTTL in milliseconds (-1 when it has no expiry).
-- Publishes nothing.
--
-- The format is Redisson's RLock format, so both libraries exclude each other.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
