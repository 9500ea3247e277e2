-- rw_force_release: delete a read-write lock when it is in the given mode, whoever holds it, and
-- wake every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}
-- KEYS[3]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  the mode to free: read or write
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock was held in that mode (it is deleted), 0 otherwise. Readers' lease
-- keys are left to expire.
if redis.call('hget', KEYS[1], 'mode') == ARGV[2] then
    redis.call('del', KEYS[1], KEYS[3])
    redis.call(ARGV[3], KEYS[2], ARGV[1])
    return 1
end
return 0
