--!df flags=allow-undeclared-keys
-- rw_write_acquire: take or re-enter the write lock of a read-write lock, find it granted, or
-- take (or keep) a place in the writers' line.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the readers' lease base, {<name>}: reader f's hold n has the key
--          KEYS[2]:f:rwlock_timeout:n
-- KEYS[3]  the writer's since, padlock_since:{<name>} (see lock_claim): a first write hold sets
--          the writer's entry (epoch ms, Redis TIME); the hash lives as long as the lock
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>}: a list of places, first come first,
--          each "<clientId>:<threadId>:write:<lease ms>:<nonce>"; the release that frees
--          the lock grants it to the first live place (see rw_read_release, rw_write_release)
-- KEYS[5]  the line's deadlines, padlock_rw_deadlines:{<name>}: a zset of place -> the epoch ms
--          (Redis TIME) after which it counts as gone; line and deadlines expire ARGV[5] ms after
--          the last attempt that took or kept a place
-- KEYS[6]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): a failed attempt that
--          takes or keeps a place closes it for ARGV[5] ms; it goes with the last writer in line
-- KEYS[7]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[7]:f
-- KEYS[8]  the readers' turn, padlock_rw_turn:{<name>} (see rw_read_acquire): a free lock waits
--          for its end
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  writer field, <clientId>:<threadId>:write
-- ARGV[3]  the same owner's reader field, <clientId>:<threadId>
-- ARGV[4]  0: an attempt without a place (a one-shot, or a wait whose client does not listen for
--             grants yet), which neither takes a place nor jumps the line;
--          1: a failed attempt takes (or keeps) the place ARGV[7], with the deadline now + ARGV[5];
--          2: as 1, and an earlier attempt of this same wait may have taken it: the writer's
--             field in the lock in write mode is then a grant to it (held once) when the place is
--             out of line, else a re-entry that leaves the line
-- ARGV[5]  the line's deadline in milliseconds
-- ARGV[6]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[7]  (with 1 or 2) the place, "<clientId>:<threadId>:write:<lease ms>:<nonce>"
-- ARGV[8]  (optional) 1 for a claim: the writer holds none of the lock as far as its client knows
--          (its last unlock could not be confirmed); when its field is there, whatever it counts
--          (that unlock's leftover, a grant, or this same claim sent again after its reply was
--          lost), the writer now holds it exactly once, with lease ARGV[1], out of line
--
-- Keys not in KEYS: every reader's hold keys, KEYS[2] followed by :<field>:rwlock_timeout:n,
--          for the fields and counts the hash holds (how a reader that died is found), which
--          only this script reads; Redisson's format keeps one key a hold of each reader.
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  nil when acquired: free, with nobody alive ahead in line (the lease is ARGV[1]; its
--          place in line goes), a grant found (ARGV[4] = 2: held once, now with lease ARGV[1]),
--          or re-entry by the writer (the lease becomes the remaining
--          PTTL + ARGV[1], never shorter); -3 when this owner holds only the read lock (an
--          upgrade, refused: it would wait on itself); otherwise how long to wait at most (ms): the
--          lock's PTTL, what is left of the readers' turn, or of the first live writer's deadline.
-- Publishes nothing. Readers whose every hold's lease is over are
-- dropped, by an attempt without a place or one of a writer already in line (the first attempt
-- of a wait only takes its place: the last reader's release grants it), so a reader that died holds
-- up writers no longer than its own lease and a park. Writers whose deadline passed are dropped.
--
-- Every failed attempt ends with PTTL of the lock, and no other run does.
--
-- Calls: uncontended: EVALSHA, HGET, TIME, EXISTS, HSET, PEXPIRE, HSET, PEXPIRE (8); held by
-- readers, taking a place: EVALSHA, HGET, TIME, ZSCORE, HEXISTS, ZADD, RPUSH, PEXPIRE, PEXPIRE,
-- SET, PTTL (11); woken at the head of the line on a free lock, the last in line: EVALSHA, HGET,
-- TIME, EXISTS, PTTL, LINDEX, LPOP, ZREM, LINDEX, DEL, HSET, PEXPIRE, HSET, PEXPIRE (14).
if redis.replicate_commands then
    redis.replicate_commands()
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    if ARGV[8] == '1' then
        -- a claim: a new count of 1, never added to what an unconfirmed unlock left; the TTL is
        -- raised to the lease, never lowered (the same owner's read holds, a downgrade, share the hash)
        redis.call('hset', KEYS[1], ARGV[2], 1)
        for _, key in ipairs({KEYS[1], KEYS[3]}) do
            if not pcall(redis.call, 'pexpire', key, ARGV[1], 'gt') then
                redis.call('pexpire', key, math.max(redis.call('pttl', key), tonumber(ARGV[1])))
            end
        end
        if ARGV[4] ~= '0' and redis.call('zrem', KEYS[5], ARGV[7]) == 1 then
            redis.call('lrem', KEYS[4], 0, ARGV[7])
        end
        return nil
    end
    if ARGV[4] == '2' then
        if not redis.call('zscore', KEYS[5], ARGV[7]) then
            -- in line since an attempt that found the writer without a hold, and the place is out
            -- of line: a grant to it, held once
            redis.call('pexpire', KEYS[1], ARGV[1])
            redis.call('pexpire', KEYS[3], ARGV[1])
            return nil
        end
        -- still in line: the writer holds through another acquisition; this one re-enters
        redis.call('zrem', KEYS[5], ARGV[7])
        redis.call('lrem', KEYS[4], 0, ARGV[7])
    end
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    -- as Redisson's write lock: the remaining lease plus the new one, so an inner acquisition
    -- never shortens what the outer one holds (a lock without expiry keeps none)
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        redis.call('pexpire', KEYS[1], ttl + tonumber(ARGV[1]))
        redis.call('pexpire', KEYS[3], ttl + tonumber(ARGV[1]))
    end
    return nil
end
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- a failed attempt: take or keep the place, then end with PTTL of the lock, as every failed
-- attempt does and no other run (what the benchmark counts failed attempts by); ms: how long to
-- wait when not the lock's TTL
local function wait(ms)
    if ARGV[4] ~= '0' then
        if redis.call('zadd', KEYS[5], now + tonumber(ARGV[5]), ARGV[7]) == 1 then
            redis.call('rpush', KEYS[4], ARGV[7])
        end
        -- line and deadlines go ARGV[5] ms after the last attempt of a writer in line
        redis.call('pexpire', KEYS[4], ARGV[5])
        redis.call('pexpire', KEYS[5], ARGV[5])
        redis.call('set', KEYS[6], 1, 'px', ARGV[5])
    end
    local ttl = redis.call('pttl', KEYS[1])
    return ms or ttl
end

if mode == 'read' then
    local scan = ARGV[4] == '0' or redis.call('zscore', KEYS[5], ARGV[7])
    if not scan and redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
        scan = true -- this owner reads: refused below unless its holds are all over
    end
    if scan then
        for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
            if field ~= 'mode' then
                local alive = false
                for n = tonumber(redis.call('hget', KEYS[1], field)), 1, -1 do
                    if redis.call('exists', KEYS[2] .. ':' .. field .. ':rwlock_timeout:' .. n) == 1 then
                        alive = true
                        break
                    end
                end
                if not alive then
                    redis.call('hdel', KEYS[1], field)
                end
            end
        end
        if redis.call('hlen', KEYS[1]) <= 1 then
            redis.call('del', KEYS[1])
            mode = false
        elseif redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
            return -3
        end
    end
end
if mode ~= false then
    return wait(nil)
end

-- a free lock with no readers' turn, no line and no gate, the common case, costs one call for the
-- three; otherwise each is looked at
if redis.call('exists', KEYS[8], KEYS[4], KEYS[6]) > 0 then
    local turn = redis.call('pttl', KEYS[8])
    if turn > 0 then
        return wait(turn)
    end
    local head = redis.call('lindex', KEYS[4], 0)
    while head and head ~= ARGV[7] do
        local deadline = tonumber(redis.call('zscore', KEYS[5], head))
        if deadline and deadline > now then
            return wait(deadline - now)
        end
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
    end
    if head then
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
    end
    if not head then
        redis.call('del', KEYS[6]) -- the last writer in line: readers no longer yield
    end
end
redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
redis.call('pexpire', KEYS[1], ARGV[1])
redis.call('hset', KEYS[3], ARGV[2], now)
redis.call('pexpire', KEYS[3], ARGV[1])
return nil
