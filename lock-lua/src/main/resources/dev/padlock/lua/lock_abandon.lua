-- lock_abandon: give back the hold of a claim whose caller gave up on it before its outcome was
-- known (its reply was lost); the caller holds nothing, so every hold of the owner goes.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{<name>}
-- KEYS[3]  the holders' since, padlock_since:{<name>}: the owner's entry goes, the whole hash
--          with the lock
-- ARGV[1]  unlock message to publish (0 for an exclusive lock)
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  0 when the owner's field is not there (the claim never landed, or its lease ran out),
--          1 when it was removed; when no other field remains the key is deleted and ARGV[1]
--          published, so waiters wake;
--          2 as 1, but Redis refused the message (an ACL user without the channel: NOPERM): nobody
--          was woken (waiters look again when the lease they saw runs out), and the call goes on
--          rather than fail after its writes (a script is not rolled back).
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[3] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return 0
end
redis.call('hdel', KEYS[1], ARGV[2])
if redis.call('hlen', KEYS[1]) == 0 then
    redis.call('del', KEYS[1], KEYS[3])
    if not pcall_publish(KEYS[2], ARGV[1]) then
        return 2
    end
else
    redis.call('hdel', KEYS[3], ARGV[2])
end
return 1
