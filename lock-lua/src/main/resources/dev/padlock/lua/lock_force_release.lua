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
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[2] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
if redis.call('del', KEYS[1]) == 1 then
    redis.call('del', KEYS[3])
    if pcall_publish(KEYS[2], ARGV[1]) then
        return 1
    end
    return 2
end
return 0
