-- lock_force_release: delete a lock whoever holds it and wake its waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{<name>}
-- KEYS[3]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- ARGV[1]  unlock message to publish (0 for an exclusive lock)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock existed (it is deleted and ARGV[1] published), 0 otherwise.
if redis.call('del', KEYS[1]) == 1 then
    redis.call('del', KEYS[3])
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
