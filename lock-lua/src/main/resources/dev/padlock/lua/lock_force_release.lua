-- lock_force_release: delete a lock whoever holds it and wake its waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{<name>}
-- KEYS[3]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- ARGV[1]  unlock message to publish (0 for an exclusive lock)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock existed (it is deleted and ARGV[1] published), 0 otherwise;
--          2 when it existed and is deleted but Redis refused the message (an ACL user without the
--          channel: NOPERM): nobody was woken, and the call goes on rather than fail after the
--          delete (a script is not rolled back). Waiters look again when the lease they saw runs out.
if redis.call('del', KEYS[1]) == 1 then
    redis.call('del', KEYS[3])
    if pcall(redis.call, ARGV[2], KEYS[2], ARGV[1]) then
        return 1
    end
    return 2
end
return 0
