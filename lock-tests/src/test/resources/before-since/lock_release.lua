-- lock_release: drop one hold of a reentrant lock; the last one deletes it and wakes waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{<name>}
-- ARGV[1]  unlock message to publish (0 for an exclusive lock)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release; 0 keeps the current TTL
-- ARGV[3]  owner field, <clientId>:<threadId>
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when ARGV[3] does not hold the lock (nothing is changed),
--          0 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          1 + N when this was the last hold: the key is deleted and ARGV[1] published to
--          N subscribers (clients with waiters, this one included when it is subscribed).
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if remaining > 0 then
    if tonumber(ARGV[2]) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
    end
    return 0
end
redis.call('del', KEYS[1])
return 1 + redis.call(ARGV[4], KEYS[2], ARGV[1])
