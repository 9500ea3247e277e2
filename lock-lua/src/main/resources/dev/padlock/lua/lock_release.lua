--!df flags=allow-undeclared-keys
-- lock_release: drop one hold of a reentrant lock. The last one passes the lock to the first
-- waiting client in line, in this same call, or else deletes it and wakes waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{<name>}
-- KEYS[3]  the holders' since, padlock_since:{<name>}: re-armed with the lock, deleted with it
-- KEYS[4]  (optional) the line of waiting clients, padlock_queue:{<name>} (see lock_claim)
-- KEYS[5]  (with KEYS[4]) this client's place in line, padlock_waiter:{<name>}:<clientId> (see
--          lock_claim): it goes when the line reaches this client's own entry, and ARGV[5] puts it
--          back
-- ARGV[1]  unlock message to publish (0 for an exclusive lock)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release, never shortening the TTL; 0 keeps it
-- ARGV[3]  owner field, <clientId>:<threadId>
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[5]  (optional, with KEYS[4]) "<threadId>:<lease ms>:<nonce>" to put this client
--          back in line, at the tail, when the lock went to another client (this client has owners
--          waiting); empty or absent: do not
-- ARGV[6]  (with ARGV[5]) how long that place lasts unless refreshed, in milliseconds
-- Another client's place is padlock_waiter:{<name>}:<clientId> and its grant channel (a channel,
-- not a key) padlock_grant:{<name>}:<clientId> (without the braces when the name has one, as
-- KEYS[4]); this client's id is ARGV[3] up to its last colon.
-- Keys not in KEYS: the places of the other clients the line reaches, built from the ids it holds,
--          which only this script reads.
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
--
-- Returns  nil when ARGV[3] does not hold the lock (nothing is changed),
--          0 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          -1 when this was the last hold and the lock was granted: the first client in line
--             whose place is alive and who listens on its grant channel now holds it, once, for
--             the owner its place names, with the lease its place asks for; the message
--             "<threadId>:<nonce>:<name>" went to its grant channel; ARGV[1] goes to the unlock
--             channel too only when that lease is shorter than the lock's TTL before this call
--             (waiters of other libraries park until the TTL they saw: they look again),
--          1 + N when this was the last hold and nobody could take it so: the key is deleted and
--             ARGV[1] published to N subscribers (clients with waiters, this one included when it
--             is subscribed); with KEYS[4], when nobody listens on the unlock channel, 1 and
--             nothing published (a message to nobody),
--          -2 as -1, and -3 as 1 + N, when Redis refused a message (an ACL user without the
--             channel: NOPERM): it woke nobody, and the call goes on (a script is not rolled back,
--             so failing it would report an unlock that landed as failed). A refused grant message
--             counts as heard by nobody: that client is passed over as one that is gone. Waiters
--             not woken look again when the lease they saw runs out (in line: at their next look).
-- A place whose key expired (a client that stopped refreshing it), and this client's own entry
-- and place, are dropped from the line on the way. "Since" is Redis TIME in epoch milliseconds; TIME is not
-- deterministic, so the writes after it replicate as their effects.
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
    if ARGV[4] == 'spublish' then
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
-- HINCRBY first, undone at once when the owner had no field: one call less than asking HEXISTS
-- first, on every release (nobody sees the -1: a script runs alone)
local remaining = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[3])
    return nil
end
if remaining > 0 then
    if tonumber(ARGV[2]) > 0 then
        extend(KEYS[1], ARGV[2])
        extend(KEYS[3], ARGV[2])
    end
    return 0
end
-- the first client in line, looked for only when somebody listens on the unlock channel: a client
-- in line listens there too, from before its place, so with no listener nobody can take a grant,
-- and the release is what the format needs (HINCRBY, DEL) plus this look, no line key touched. An
-- ACL user without +pubsub looks in line every time
local function listeners()
    local ok, reply = pcall(redis.call, 'pubsub', ARGV[4] == 'spublish' and 'shardnumsub' or 'numsub', KEYS[2])
    return ok and reply[2] or 1
end
if KEYS[4] and listeners() == 0 then
    redis.call('del', KEYS[1], KEYS[3])
    return 1
end
local client = KEYS[4] and redis.call('lpop', KEYS[4])
-- the lock's TTL before this call, when a grant may follow: a Redisson waiter parks at most the TTL
-- it saw. TTL rounds to seconds (within 500 ms), enough to tell whether a lease is shorter; PTTL is
-- what refused attempts end with (and are counted by). An ACL user without +ttl counts as a long
-- TTL: every grant then wakes the shared channel too
local function ttl_millis()
    local ok, ttl = pcall(redis.call, 'ttl', KEYS[1])
    return ok and ttl * 1000 or math.huge
end
local before = client and ttl_millis()
redis.call('del', KEYS[1], KEYS[3])
if client then
    local me = string.match(ARGV[3], '^(.*):[^:]*$')
    local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
    local places = 'padlock_waiter:' .. tag .. ':'
    local grants = 'padlock_grant:' .. tag .. ':'
    while client do
        local place = client ~= me and redis.call('get', places .. client)
        if client == me then
            -- this client's own entry: its place goes too, so that an owner of it still waiting
            -- gets in line again (at the tail) with its next claim
            redis.call('del', KEYS[5])
        end
        if place then
            redis.call('del', places .. client)
            local thread, lease, nonce = string.match(place, '^(%-?%d+):(%d+):(%d+)$')
            local field = client .. ':' .. thread
            redis.call('hset', KEYS[1], field, 1)
            redis.call('pexpire', KEYS[1], lease)
            if publish(grants .. client, thread .. ':' .. nonce .. ':' .. KEYS[1]) > 0 then
                local t = redis.call('time')
                redis.call('hset', KEYS[3], field, t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000)))
                redis.call('pexpire', KEYS[3], lease)
                if tonumber(lease) < before then
                    -- a Redisson waiter parks at most the TTL it saw; with a shorter grant, a
                    -- grantee that froze would leave it asleep on a free lock: wake it now
                    publish(KEYS[2], ARGV[1])
                end
                if ARGV[5] ~= nil and ARGV[5] ~= '' then
                    redis.call('set', KEYS[5], ARGV[5], 'px', ARGV[6])
                    redis.call('rpush', KEYS[4], me)
                    redis.call('pexpire', KEYS[4], ARGV[6])
                end
                return refused and -2 or -1
            end
            -- nobody of that client listens (it is gone, or stopped waiting), or nobody could hear
            -- (refused): next in line
            redis.call('del', KEYS[1])
        end
        client = redis.call('lpop', KEYS[4])
    end
end
local heard = publish(KEYS[2], ARGV[1])
return refused and -3 or 1 + heard
