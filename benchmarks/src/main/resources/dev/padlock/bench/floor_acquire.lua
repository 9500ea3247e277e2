-- floor_acquire: the bench's floor takes a lock in the format of Redisson's RLock (a hash of
-- owner field to hold count, with a lease), and does nothing else. Benchmarks only.
--
-- KEYS[1]  the lock, a hash: <owner field> -> hold count
-- ARGV[1]  the lease in milliseconds
-- ARGV[2]  the owner field, <client uuid>:<thread id>
--
-- Returns  nil when acquired (a first hold: EXISTS, HINCRBY, PEXPIRE; or a re-entry), the
--          lease set to ARGV[1]; else the lock's PTTL in milliseconds (held by another owner).
-- Publishes nothing.
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
