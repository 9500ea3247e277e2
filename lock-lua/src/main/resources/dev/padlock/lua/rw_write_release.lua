--!df flags=allow-undeclared-keys
-- rw_write_release: drop one write hold; the last one frees the lock, or leaves it to this
-- owner's read holds (a downgrade), and lets in who can get in, in this same call (a grant): the
-- readers waiting in the hall, or else the first live writer in line; with nobody waiting in
-- either, it wakes every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  the writer's since, padlock_since:{<name>}: the writer's entry goes, the hash takes
--          the lock's TTL and is deleted with it
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>} (see rw_read_acquire)
-- KEYS[5]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[6]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): it goes with the last
--          writer in line
-- KEYS[7]  the readers' hall, padlock_rw_readers:{<name>} (see rw_read_acquire)
-- KEYS[8]  the readers' lease base, {<name>}: reader f's hold n has the key
--          KEYS[8]:f:rwlock_timeout:n
-- KEYS[9]  the readers' turn, padlock_rw_turn:{<name>} (see rw_read_acquire): set for ARGV[7] ms
--          when readers were granted while writers wait
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release, never shortening the TTL; 0 keeps it
-- ARGV[3]  writer field, <clientId>:<threadId>:write
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[5]  now, epoch milliseconds of this client's clock: the since of the readers granted
-- ARGV[6]  1 when PUBLISH's count says who heard a grant (a reader or a place whose client nobody
--          listens for is passed over), 0 when it cannot (a 6.2 Cluster: every reader gets it)
-- ARGV[7]  the readers' turn in milliseconds
-- A reader's client listens for grants on padlock_grant:{<name>}:<clientId> (without the braces
-- when the name has one).
--
-- Keys not in KEYS: the hold key each reader granted from the hall gets, KEYS[8] followed by
--          :<field>:rwlock_timeout:n, for the fields the hall holds and the counts the hash
--          gives, which only this script reads (Redisson's format keeps one key a hold).
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  nil when ARGV[3] does not hold the write lock (nothing is changed),
--          0 when write holds remain (the lease is re-armed when ARGV[2] > 0),
--          -1 when this was the last write hold and the readers in the hall got the lock while
--             writers wait in line: the readers' turn begins, in which new readers join them
--             despite the gate (ARGV[1] goes to the shared channel, so Redisson's readers join
--             too), and the last reader to leave wakes the first writer,
--          -1 also when the lock went to the first live writer in line: it holds once, with the
--             lease its place asks for, and "w:<threadId>:<nonce>:<name>" went to its client's
--             grant channel (see rw_read_release); ARGV[1] goes to the shared channel too when
--             that lease is shorter than the lock's TTL before this call,
--          1 + N when this was the last write hold otherwise; N is how many subscribers ARGV[1]
--             reached on the shared channel,
--          -2 as -1, and -3 as 1 + N, when Redis refused a message (an ACL user without the
--             channel: NOPERM): it woke nobody, and the call goes on (a script is not rolled back,
--             so failing it would report an unlock that landed as failed). A refused grant message
--             counts as heard by nobody: that reader or writer is passed over as one whose client
--             is gone (with ARGV[6] = 0 it gets the grant, as always). Waiters not woken look again
--             when the lease they saw runs out (in line or in the hall: at their next look).
-- A granted reader holds once, its lease key (hold 1) set for the lease its place asks for, and
-- "r:<threadId>:<nonce>:<name>" goes to its client's grant channel. So write phases and read phases alternate while both wait, and
-- neither starves the other: a new reader yields to writers in line (rw_read_acquire), and the
-- readers that waited by a write's end, and those that come in the readers' turn, go in before
-- the next writer.
--
-- Calls: the last hold, nobody waiting: EVALSHA, HINCRBY, HLEN, EXISTS, DEL, PUBLISH (6); + for
-- readers in the hall: LINDEX, HGETALL, DEL, HSET, PEXPIRE, and per reader PUBLISH, HINCRBY, SET,
-- and with writers in line SET (the turn); granted to the next writer: EVALSHA, HINCRBY, HLEN,
-- EXISTS, LINDEX, DEL, HGETALL, TIME, ZSCORE, PUBLISH, LPOP, ZREM, HSET, PEXPIRE, HSET, PEXPIRE,
-- LINDEX, TTL (18).
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
-- HINCRBY first, undone at once when the owner had no field: one call less than HEXISTS first
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
-- free when the hash has only the mode and this writer's field, which the DEL below takes
local free = redis.call('hlen', KEYS[1]) <= 2
if not free then
    redis.call('hdel', KEYS[1], ARGV[3])
end
-- nobody in line and nobody in the hall, the common case, costs one call for the two
local waiting = redis.call('exists', KEYS[4], KEYS[7]) > 0
local head = waiting and redis.call('lindex', KEYS[4], 0)
-- the lock's TTL before this call, when a grant may follow: a Redisson waiter parks at most the TTL
-- it saw. TTL rounds to seconds (within 500 ms), enough to tell whether a lease is shorter; PTTL is
-- what refused attempts end with (and are counted by). An ACL user without +ttl counts as a long
-- TTL: every grant then wakes the shared channel too
local function ttl_millis()
    local ok, ttl = pcall(redis.call, 'ttl', KEYS[1])
    return ok and ttl * 1000 or math.huge
end
local before = head and free and ttl_millis()
if free then
    redis.call('del', KEYS[1], KEYS[3])
else
    -- downgraded: this owner's read holds keep the lock (the hash already lives as long as their
    -- leases), and other readers may now join
    redis.call('hdel', KEYS[3], ARGV[3])
    redis.call('hset', KEYS[1], 'mode', 'read')
end

-- the readers in the hall get in
local hall = waiting and redis.call('hgetall', KEYS[7]) or {}
local granted = 0
if #hall > 0 then
    redis.call('del', KEYS[7])
    local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
    local grants = 'padlock_grant:' .. tag .. ':'
    for i = 1, #hall, 2 do
        local client, thread = string.match(hall[i], '^(.*):(%-?%d+)$')
        local lease, nonce = string.match(hall[i + 1], '^(%d+):(%d+)$')
        if client and lease then
            local heard = publish(grants .. client, 'r:' .. thread .. ':' .. nonce .. ':' .. KEYS[1])
            if heard > 0 or ARGV[6] == '0' then
                local hold = redis.call('hincrby', KEYS[1], hall[i], 1)
                redis.call('set', KEYS[8] .. ':' .. hall[i] .. ':rwlock_timeout:' .. hold, ARGV[5], 'px', lease)
                granted = math.max(granted, tonumber(lease))
            end
        end
    end
    if granted > 0 then
        if free then
            redis.call('hset', KEYS[1], 'mode', 'read')
            redis.call('pexpire', KEYS[1], granted)
        elseif not pcall(redis.call, 'pexpire', KEYS[1], granted, 'gt') then
            redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), granted))
        end
        free = false
    end
end

if head and granted > 0 then
    redis.call('set', KEYS[9], 1, 'px', ARGV[7])
    publish(KEYS[2], ARGV[1]) -- Redisson's readers may join the granted ones now
    return refused and -2 or -1
end
if head and free then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
    local grants = 'padlock_grant:' .. tag .. ':'
    while head do
        local deadline = tonumber(redis.call('zscore', KEYS[5], head))
        local client, thread, lease, nonce = string.match(head, '^(.*):(%-?%d+):write:(%d+):(%d+)$')
        if deadline and deadline > now and client and (publish(grants .. client,
                'w:' .. thread .. ':' .. nonce .. ':' .. KEYS[1]) > 0 or ARGV[6] == '0') then
            redis.call('lpop', KEYS[4])
            redis.call('zrem', KEYS[5], head)
            local field = client .. ':' .. thread .. ':write'
            redis.call('hset', KEYS[1], 'mode', 'write', field, 1)
            redis.call('pexpire', KEYS[1], lease)
            redis.call('hset', KEYS[3], field, now)
            redis.call('pexpire', KEYS[3], lease)
            if not redis.call('lindex', KEYS[4], 0) then
                redis.call('del', KEYS[6])
            end
            if tonumber(lease) < before then
                -- Redisson's waiters park at most the TTL they saw: with a shorter grant, a
                -- grantee that froze would leave them asleep on a free lock
                publish(KEYS[2], ARGV[1])
            end
            return refused and -2 or -1
        end
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
    end
    redis.call('del', KEYS[6]) -- the last writer in line is gone: readers no longer yield
end
local heard = publish(KEYS[2], ARGV[1])
return refused and -3 or 1 + heard
