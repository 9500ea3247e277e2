--!df flags=allow-undeclared-keys
-- rw_read_release: drop one read hold; when no reader and no writer is left, pass the lock to the
-- first live writer in line in this same call (a grant), or else delete it and wake every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>} (see rw_write_acquire)
-- KEYS[5]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[6]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): gone with the last writer in
--          line
-- KEYS[7]  the readers' turn, padlock_rw_turn:{<name>} (see rw_read_acquire)
-- KEYS[8]  the writers' since, padlock_since:{<name>}: a granted writer's entry is set (Redis TIME)
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[4]  1 when PUBLISH's count says who heard a grant (a place whose client nobody listens for
--          is passed over), 0 when it cannot (a 6.2 Cluster: the first live place gets it)
-- A place's client listens for grants on padlock_grant:{<name>}:<clientId> (without the braces
-- when the name has one).
--
-- Keys not in KEYS: this reader's hold keys, KEYS[3] followed by :n, n up to its count in the
--          hash, which only this script reads (Redisson's format keeps one key a hold).
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  nil when ARGV[2] holds no read lock, or its every hold's lease is over (its field is
--          dropped then),
--          0 when holds of this reader remain,
--          1 + N when this was its last hold; N is how many subscribers ARGV[1] reached on the
--          shared channel when the lock became free (0 while others hold it, or when it went to
--          the first live writer in line instead: that writer holds it once, with the lease its
--          place asks for, and "w:<threadId>:<nonce>:<name>" went to its client's grant channel;
--          ARGV[1] goes to the shared channel too when that lease is shorter than the lock's TTL
--          before this call, as Redisson's waiters park until the TTL they saw),
--          -3 instead of 1 + N when Redis refused a message (an ACL user without the channel:
--          NOPERM): it woke nobody, and the call goes on (a script is not rolled back, so failing
--          it would report an unlock that landed as failed). A refused grant message counts as
--          heard by nobody: that writer is passed over as one whose client is gone (with ARGV[4] =
--          0 it gets the grant, as always). Waiters not woken look again when the lease they saw
--          runs out (in line: at their next look).
-- Other readers are not looked at: the hash lives at least as long as the longest lease (see
-- rw_read_acquire), and readers that died are dropped by a writer's attempt (rw_write_acquire).
-- Places in line whose deadline passed, or whose client nobody listens for, are dropped.
--
-- A release that leaves holds leaves them the longest lease the owner had: the released hold's
-- lease moves to the next key down when it is longer (never shorter, as the exclusive lock's).
--
-- Calls: a hold that is not the last: EVALSHA, HINCRBY, PTTL, DEL, PTTL (5; + PEXPIRE, and SET
-- when that key had lapsed, when the released lease was longer); a last hold beside other
-- holders: + HDEL, HLEN (5); the lock freed, nobody in line: + DEL, LINDEX, PUBLISH (8); the lock
-- granted to the writer in line: + DEL, LINDEX, TIME, ZSCORE, PUBLISH, LPOP, ZREM, HSET, PEXPIRE,
-- HSET, PEXPIRE, LINDEX (+ DEL of the gate for the last in line) (17).
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
-- HINCRBY first, undone at once when the owner had no field: one call less than HGET first
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
    return nil
end
local lease = KEYS[3] .. ':' .. (remaining + 1)
-- what is left of the released hold's lease: the holds that remain keep it (below)
local left = remaining > 0 and redis.call('pttl', lease) or -2
local released = redis.call('del', lease) == 1
if released and remaining > 0 then
    -- never shorter: the owner's holds that remain last as long as its longest lease, as a re-entry
    -- of the exclusive lock leaves them; the next key down takes the released hold's lease when
    -- that is longer (hold 1's key keeps its value, the reader's since)
    local below = KEYS[3] .. ':' .. remaining
    if left > redis.call('pttl', below) and redis.call('pexpire', below, left) == 0 then
        redis.call('set', below, 1, 'px', left)
    end
    return 0
end
if not released then
    for n = remaining, 1, -1 do
        if redis.call('exists', KEYS[3] .. ':' .. n) == 1 then
            released = true
            break
        end
    end
end
if released and remaining > 0 then
    return 0
end
redis.call('hdel', KEYS[1], ARGV[2])
local result = released and 1 or nil
if redis.call('hlen', KEYS[1]) > 1 then
    return result
end
local head = redis.call('lindex', KEYS[4], 0)
-- the lock's TTL before this call, when a grant may follow: a Redisson waiter parks at most the TTL
-- it saw. TTL rounds to seconds (within 500 ms), enough to tell whether a lease is shorter; PTTL is
-- what refused attempts end with (and are counted by). An ACL user without +ttl counts as a long
-- TTL: every grant then wakes the shared channel too
local function ttl_millis()
    local ok, ttl = pcall(redis.call, 'ttl', KEYS[1])
    return ok and ttl * 1000 or math.huge
end
local before = head and ttl_millis()
redis.call('del', KEYS[1])
if head then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
    local grants = 'padlock_grant:' .. tag .. ':'
    while head do
        local deadline = tonumber(redis.call('zscore', KEYS[5], head))
        local client, thread, lease, nonce = string.match(head, '^(.*):(%-?%d+):write:(%d+):(%d+)$')
        if deadline and deadline > now and client and (publish(grants .. client,
                'w:' .. thread .. ':' .. nonce .. ':' .. KEYS[1]) > 0 or ARGV[4] == '0') then
            redis.call('lpop', KEYS[4])
            redis.call('zrem', KEYS[5], head)
            local field = client .. ':' .. thread .. ':write'
            redis.call('hset', KEYS[1], 'mode', 'write', field, 1)
            redis.call('pexpire', KEYS[1], lease)
            redis.call('hset', KEYS[8], field, now)
            redis.call('pexpire', KEYS[8], lease)
            if not redis.call('lindex', KEYS[4], 0) then
                redis.call('del', KEYS[6])
            end
            if tonumber(lease) < before then
                -- Redisson's waiters park at most the TTL they saw: with a shorter grant, a
                -- grantee that froze would leave them asleep on a free lock
                publish(KEYS[2], ARGV[1])
            end
            return (released and refused) and -3 or result
        end
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
    end
    redis.call('del', KEYS[6])
end
local woken = publish(KEYS[2], ARGV[1])
if not released then
    return nil
end
return refused and -3 or 1 + woken
