-- fair_release: drop one hold of a fair lock; the last one passes the lock to the first live
-- place in line, in this same call, or wakes the first of Redisson's fair waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}: re-armed with the lock, deleted with it
-- KEYS[4]  Redisson's fair queue, redisson_lock_queue:{<name>}: a list of Redisson waiters'
--          fields, first come first
-- KEYS[5]  the unlock channel, redisson_lock__channel:{<name>}; a Redisson fair waiter listens
--          on KEYS[5]:<its field>
-- KEYS[6]  Redisson's fair waiters' deadlines, redisson_lock_timeout:{<name>}: a zset of field ->
--          epoch ms after which Redisson counts the waiter as gone
-- ARGV[1]  lease in milliseconds to re-arm after an inner release, never shortening the TTL; 0 keeps it
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[4]  1 when PUBLISH's count says who heard a grant, 0 when it cannot (see fair_acquire)
-- A place's client listens for grants on padlock_grant:{<name>}:<clientId> (without the braces
-- when the name has one).
--
-- Returns  nil when ARGV[2] does not hold the lock (nothing is changed),
--          0 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          -1 when this was the last hold and the lock went to the first place in line whose
--             client heard the grant: that owner now holds it once, with the lease its place asked
--             for, and "f:<threadId>:<nonce>:<name>" went to its client's grant channel,
--          1 when this was the last hold and nobody alive is in line: the lock is deleted, and "0"
--             goes to the unlock channel (waiters of the plain, spin and fenced locks on the same
--             hash, and Redisson's RLock waiters),
--          -2 as -1, and -3 as 1, when Redis refused a message (an ACL user without the channel:
--             NOPERM): it woke nobody, and the call goes on (a script is not rolled back, so
--             failing it would report an unlock that landed as failed). A refused grant message
--             counts as heard by nobody: that place is passed over as one whose client is gone
--             (with ARGV[4] = 0 it gets the grant, as always, and finds it at its next look).
--             Waiters not woken look again when the lease they saw runs out (in line: at their
--             next look).
-- Places whose client nobody listens for (a client that is gone) are dropped on the way.
-- Redisson's first fair waiter parks until the lock's TTL it saw runs out, and no longer than the
-- TTL the lock had before this call: it is sent "0" when the lock is deleted, and when the grant's
-- lease is shorter than that TTL (a grantee that froze would leave it asleep on a free lock); the
-- unlock channel gets "0" then too.
--
-- Calls: a last hold granted to the next place: EVALSHA, HINCRBY, LPOP, TTL, DEL, HSET, PEXPIRE,
-- PUBLISH (8); the last hold, nobody in line: EVALSHA, HINCRBY, LPOP, DEL, PUBLISH, LINDEX (6;
-- with Redisson's fair waiters queued, + TIME, ZSCORE, PUBLISH).
if redis.replicate_commands then
    redis.replicate_commands()
end
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
    if ARGV[3] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
-- how many heard; 0 when Redis refused it, which the reply then says
local refused = false
local function publish(channel, message)
    local ok, heard = pcall_publish(channel, message)
    if ok then
        return heard
    end
    refused = true
    return 0
end
-- HINCRBY first, undone at once when the owner had no field: one call less than HEXISTS first
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
    return nil
end
if remaining > 0 then
    if tonumber(ARGV[1]) > 0 then
        extend(KEYS[1], ARGV[1])
        extend(KEYS[3], ARGV[1])
    end
    return 0
end
-- as Redisson's unlock does: "0" to the first of its fair waiters whose deadline has not passed
local function wake_redisson()
    local first = redis.call('lindex', KEYS[4], 0)
    if not first then
        return
    end
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    for i = 1, 10 do
        local deadline = redis.call('zscore', KEYS[6], first)
        if not deadline or tonumber(deadline) > now then
            publish(KEYS[5] .. ':' .. first, '0')
            return
        end
        first = redis.call('lindex', KEYS[4], i)
        if not first then
            return
        end
    end
end
local place = redis.call('lpop', KEYS[2])
-- the lock's TTL before this call, when a grant may follow: a Redisson waiter parks at most the TTL
-- it saw. TTL rounds to seconds (within 500 ms), enough to tell whether a lease is shorter; PTTL is
-- what refused attempts end with (and are counted by). An ACL user without +ttl counts as a long
-- TTL: every grant then wakes the shared channel too
local function ttl_millis()
    local ok, ttl = pcall(redis.call, 'ttl', KEYS[1])
    return ok and ttl * 1000 or math.huge
end
local before = place and ttl_millis()
redis.call('del', KEYS[1], KEYS[3])
local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
local grants = 'padlock_grant:' .. tag .. ':'
while place do
    local client, thread, lease, nonce = string.match(place, '^(.*):(%-?%d+):(%d+):(%d+)$')
    if client then
        redis.call('hset', KEYS[1], client .. ':' .. thread, 1)
        redis.call('pexpire', KEYS[1], lease)
        local heard = publish(grants .. client, 'f:' .. thread .. ':' .. nonce .. ':' .. KEYS[1])
        if heard > 0 or ARGV[4] == '0' then
            if tonumber(lease) < before then
                publish(KEYS[5], '0')
                wake_redisson()
            end
            return refused and -2 or -1
        end
        redis.call('del', KEYS[1])
    end
    place = redis.call('lpop', KEYS[2])
end
-- free: waiters of the plain, spin and fenced locks on this hash, and Redisson's, listen here
publish(KEYS[5], '0')
wake_redisson()
return refused and -3 or 1
