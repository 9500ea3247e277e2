-- multi_release: drop one hold of an owner on every lock of a multi lock, in one call. The last
-- hold of a lock deletes it and wakes its waiters.
--
-- KEYS[3i-2] a lock hash, for i = 1..n (all in one Cluster slot when run on a Cluster)
-- KEYS[3i-1] its unlock channel, redisson_lock__channel:{<name>}
-- KEYS[3i]   its holders' since, padlock_since:{<name>}: re-armed with the lock, deleted with it
-- ARGV[1]    unlock message to publish (0 for an exclusive lock)
-- ARGV[2]    lease in milliseconds to re-arm after an inner release, never shortening the TTL; 0 keeps it
-- ARGV[3]    owner field, <clientId>:<threadId>
-- ARGV[4]    the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  an array of n integers, the i-th for KEYS[3i-2]:
--          0 when ARGV[3] does not hold it (nothing is changed there),
--          1 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          2 when this was the last hold: the key is deleted and ARGV[1] published on its channel,
--          3 as 2, but Redis refused the message (an ACL user without the channel: NOPERM): it woke
--            nobody, and the call goes on (a script is not rolled back, so failing it would report
--            an unlock that landed as failed); waiters look again when the lease they saw runs out.
-- Each lock is released as lock_release releases it when no client waits in its line: this call
-- grants to nobody, and a client in line, which listens on the unlock channel, takes the lock with
-- its next claim.
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
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[4] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
local released = {}
for i = 1, #KEYS / 3 do
    local lock = KEYS[3 * i - 2]
    -- HINCRBY first, undone at once when the owner had no field, as lock_release does
    local remaining = redis.call('hincrby', lock, ARGV[3], -1)
    if remaining < 0 then
        redis.call('hdel', lock, ARGV[3])
        released[i] = 0
    elseif remaining > 0 then
        if tonumber(ARGV[2]) > 0 then
            extend(lock, ARGV[2])
            extend(KEYS[3 * i], ARGV[2])
        end
        released[i] = 1
    else
        redis.call('del', lock, KEYS[3 * i])
        released[i] = pcall_publish(KEYS[3 * i - 1], ARGV[1]) and 2 or 3
    end
end
return released
