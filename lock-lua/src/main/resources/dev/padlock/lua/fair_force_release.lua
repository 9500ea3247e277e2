-- fair_force_release: delete a fair lock whoever holds it and wake its waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- KEYS[3]  the unlock channel, redisson_lock__channel:{<name>}; a Redisson fair waiter listens
--          on KEYS[3]:<its field>
-- KEYS[4]  Redisson's fair queue, redisson_lock_queue:{<name>} (see fair_release)
-- KEYS[5]  Redisson's fair waiters' deadlines, redisson_lock_timeout:{<name>} (see fair_release)
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock existed (it is deleted and ARGV[1] published), 0 otherwise;
--          2 when it existed and is deleted but Redis refused a message (an ACL user without the
--          channel: NOPERM): it woke nobody, and the call goes on rather than fail after the delete
--          (a script is not rolled back). Waiters look again when the lease they saw runs out.
-- Every waiting Padlock client listens on KEYS[3] too: the first attempt that finds the lock free
-- takes it when it is first in line, or grants it to the first live place (see fair_acquire). The
-- line keeps its order. Redisson's first fair waiter is woken on its own channel, as Redisson's
-- force unlock does.
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
redis.call('del', KEYS[2])
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[2] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
-- a message Redis refused is noted for the reply
local allowed = true
local function publish(channel, message)
    allowed = pcall_publish(channel, message) and allowed
end
publish(KEYS[3], ARGV[1])
-- as Redisson's force unlock does: ARGV[1] to the first of its fair waiters whose deadline has not passed
local first = redis.call('lindex', KEYS[4], 0)
if first then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    for i = 1, 10 do
        local deadline = redis.call('zscore', KEYS[5], first)
        if not deadline or tonumber(deadline) > now then
            publish(KEYS[3] .. ':' .. first, ARGV[1])
            break
        end
        first = redis.call('lindex', KEYS[4], i)
        if not first then
            break
        end
    end
end
return allowed and 1 or 2
