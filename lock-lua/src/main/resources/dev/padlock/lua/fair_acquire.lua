-- fair_acquire: take a fair lock when it is free and nobody alive is ahead in line, re-enter it,
-- find it granted, or take (or keep) a place in line.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count (RLock's format)
-- KEYS[2]  the line, padlock_fair_queue:{<name>}: a list of places, first come first, each
--          "<clientId>:<threadId>:<lease ms>:<nonce>" (see fair_release); it expires ARGV[7] ms
--          after the attempt that created it or last found a place in it
-- KEYS[3]  the holders' since, padlock_since:{<name>} (see lock_claim): a first hold taken here
--          sets its owner's entry (epoch ms, Redis TIME); both take the lock's lease
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  0: a one-shot attempt, which neither takes a place nor jumps the line;
--          1: take the place ARGV[4] at the tail when the lock is not acquired;
--          2: ARGV[4] was put in line by an earlier attempt of this same wait: the owner's field
--             in the lock is a grant to it when that place is out of line (else the owner holds
--             through another acquisition: this one re-enters and leaves the line), and a place
--             that is gone is taken again at the tail
-- ARGV[4]  (with 1 or 2) the owner's place
-- ARGV[5]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[6]  1 when PUBLISH's count says who heard a grant (a client nobody of which listens is
--          passed over), 0 when it cannot (a 6.2 Cluster: the place gets the grant anyway)
-- ARGV[7]  (with 1 or 2) how long the line lasts after this attempt, in milliseconds: waiters in
--          line attempt again more often than that, so a line whose waiters all died goes
-- ARGV[8]  (optional) 1 for a claim: the owner holds none of the lock as far as its client knows
--          (its last unlock could not be confirmed); when its field is there, whatever it counts
--          (that unlock's leftover, or this same claim sent again after its reply was lost), the
--          owner now holds it exactly once, with lease ARGV[1], and leaves the line
--
-- Returns  nil when acquired: a first hold (the lease is ARGV[1]), a re-entry (a TTL of at
--          least ARGV[1], never shortening what the owner's other holds have), or with
--          ARGV[3] = 2 a grant found (the owner holds it once, now with lease ARGV[1]); otherwise how long to wait at most before the next attempt (ms): the lock's
--          PTTL (-1: no expiry), or the granted place's lease when this call passed a free lock to
--          the first live place in line.
-- Publishes only when it finds the lock free with places ahead: then it grants as fair_release
-- does, the first live place first. A grant message Redis refused (an ACL user without the
-- channel: NOPERM) counts as heard by nobody, as in fair_release: the call goes on.
--
-- Calls: the lock held by another, taking a place: EVALSHA, PTTL, HEXISTS, RPUSH (4; + PEXPIRE
-- when the place starts the line).
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
    if ARGV[5] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
local function take()
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    local t = redis.call('time')
    redis.call('hset', KEYS[3], ARGV[2], t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000)))
    redis.call('pexpire', KEYS[3], ARGV[1])
end
local function keep_place()
    if ARGV[3] == '2' and redis.call('lpos', KEYS[2], ARGV[4]) then
        redis.call('pexpire', KEYS[2], ARGV[7])
    elseif ARGV[3] ~= '0' and (redis.call('rpush', KEYS[2], ARGV[4]) == 1 or ARGV[3] == '2') then
        redis.call('pexpire', KEYS[2], ARGV[7])
    end
end

local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 then
    if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
        if ARGV[8] == '1' then
            -- a claim: a new count of 1, never added to what an unconfirmed unlock left
            redis.call('hset', KEYS[1], ARGV[2], 1)
            redis.call('pexpire', KEYS[1], ARGV[1])
            redis.call('pexpire', KEYS[3], ARGV[1])
            if ARGV[3] ~= '0' then
                redis.call('lrem', KEYS[2], 0, ARGV[4])
            end
            return nil
        end
        if ARGV[3] == '2' and redis.call('lrem', KEYS[2], 0, ARGV[4]) == 0 then
            -- in line since an attempt that found the owner without a hold, and the place is out
            -- of line: a grant to it, held once, now with lease ARGV[1]
            redis.call('pexpire', KEYS[1], ARGV[1])
            redis.call('pexpire', KEYS[3], ARGV[1])
            return nil
        end
        redis.call('hincrby', KEYS[1], ARGV[2], 1)
        extend(KEYS[1], ARGV[1])
        extend(KEYS[3], ARGV[1])
        return nil
    end
    keep_place()
    return ttl
end

-- free: the first live place in line gets it; this owner takes it when that is its own place
-- or nobody alive is in line
local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
local grants = 'padlock_grant:' .. tag .. ':'
local mine = ARGV[3] ~= '0' and ARGV[4] or nil
local place = redis.call('lpop', KEYS[2])
while place and place ~= mine do
    local client, thread, lease, nonce = string.match(place, '^(.*):(%-?%d+):(%d+):(%d+)$')
    if client then
        redis.call('hset', KEYS[1], client .. ':' .. thread, 1)
        redis.call('pexpire', KEYS[1], lease)
        -- a message Redis refused is heard by nobody, and fails no call (its writes stay)
        local ok, heard = pcall_publish(grants .. client, 'f:' .. thread .. ':' .. nonce .. ':' .. KEYS[1])
        heard = ok and heard or 0
        if heard > 0 or ARGV[6] == '0' then
            if mine then
                keep_place()
            end
            return tonumber(lease)
        end
        redis.call('del', KEYS[1])
    end
    place = redis.call('lpop', KEYS[2])
end
take()
return nil
