--!df flags=allow-undeclared-keys
-- rw_read_acquire: take or re-enter the read lock of a read-write lock, find it granted, or wait
-- for it in the readers' hall (a new reader yields to writers waiting in line).
--
-- KEYS[1]  the lock: a hash with field mode = read|write, one field per reader
--          <clientId>:<threadId> -> hold count, and the writer's <clientId>:<threadId>:write
-- KEYS[2]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout; hold n
--          has its own lease, the key KEYS[2]:n. The value of hold 1's key is the reader's since
--          (epoch ms, its client's clock); Redisson only reads these keys' existence and TTL
-- KEYS[3]  the gate, padlock_rw_gate:{<name>}: present while writers wait in line (see
--          rw_write_acquire); a new reader yields to them, except in the readers' turn
-- KEYS[4]  the readers' hall, padlock_rw_readers:{<name>}: a hash of waiting readers,
--          <clientId>:<threadId> -> "<lease ms>:<nonce>", which the write release grants
--          (see rw_write_release); it lives ARGV[4] ms after the last refused attempt
-- KEYS[5]  the readers' turn, padlock_rw_turn:{<name>}: present for a short while after a write
--          release that granted the hall while writers wait (see rw_write_release)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientId>:<threadId>:write
-- ARGV[4]  how long the hall lasts after a refused attempt, in milliseconds
-- ARGV[5]  now, epoch milliseconds of the reader's client: the since of a first hold
-- ARGV[6]  0: an attempt without a place (a one-shot, or a wait whose client does not listen
--             for grants yet);
--          1: a refused attempt takes (or keeps) the place ARGV[7] in the hall;
--          2: as 1, and an earlier attempt of this same wait may have taken it: the reader's
--             field in the lock is then a grant to it (held once), and acquiring leaves the hall
-- ARGV[7]  (with 1 or 2) the place, "<lease ms>:<nonce>"
-- ARGV[8]  (optional) 1 for a claim: the reader holds none of the lock as far as its client knows
--          (its last unlock could not be confirmed); when its field is there, whatever it counts
--          (that unlock's leftover, a grant, or this same claim sent again after its reply was
--          lost), the reader now holds it exactly once, with lease ARGV[1], and leaves the hall;
--          the leftover's other holds' lease keys run out by themselves
--
-- Keys not in KEYS: this reader's hold keys, KEYS[2] followed by :n, n the hold's number in the
--          hash, which only this script reads (Redisson's format keeps one key a hold).
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  nil when acquired: a re-entry, a downgrade (write mode held by this same owner), a
--          grant found (ARGV[6] = 2), or a first hold in read mode or on a free lock with no writer
--          in line; otherwise how long to wait at most (ms): the lock's PTTL in write mode, else
--          the gate's (it goes with the last writer in line, or when writers stop attempting).
-- Publishes nothing. The hash lives as long as its longest lease. Redisson's RReadWriteLock
-- format. Every refusal ends with PTTL of the lock (written) or of the gate (yielding), and no
-- other run does (the benchmark counts failed attempts so).
--
-- Calls: a first hold on a free lock: EVALSHA, HGET, EXISTS, HSET, SET, PEXPIRE (6); beside other
-- readers, no writer in line or in the readers' turn: EVALSHA, HGET, EXISTS, HINCRBY, SET,
-- PEXPIRE GT (6; on Redis 6.2 PTTL and PEXPIRE instead, 7); + HDEL for an attempt in the hall.
-- Refused while written, with a place: EVALSHA, HGET, HEXISTS, HSET, PEXPIRE, PTTL (6); yielding
-- to a writer: EVALSHA, HGET, EXISTS, HEXISTS, HSET, PEXPIRE, PTTL (7).
local mode = redis.call('hget', KEYS[1], 'mode')
-- a refused attempt with a place takes or keeps it; the hall lives ARGV[4] ms from the last one
local function take_place()
    if ARGV[6] ~= '0' then
        redis.call('hset', KEYS[4], ARGV[2], ARGV[7])
        redis.call('pexpire', KEYS[4], ARGV[4])
    end
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    take_place()
    return redis.call('pttl', KEYS[1])
end
local held = nil
-- one key of the two: the gate closed and not the readers' turn (or, for its last moments, a turn
-- whose gate lapsed)
if mode ~= 'write' and redis.call('exists', KEYS[3], KEYS[5]) == 1 then
    held = redis.call('hexists', KEYS[1], ARGV[2]) == 1
    if not held then
        take_place()
        local closed = redis.call('pttl', KEYS[3])
        if closed <= 0 then
            closed = redis.call('pttl', KEYS[5])
        end
        return math.max(1, closed)
    end
end
local function lease_lock()
    if mode == false then
        redis.call('pexpire', KEYS[1], ARGV[1])
    elseif not pcall(redis.call, 'pexpire', KEYS[1], ARGV[1], 'gt') then
        local lease = math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))
        redis.call('pexpire', KEYS[1], lease)
    end
end
if ARGV[8] == '1' and mode ~= false and (held or redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    -- a claim: a new count of 1, never added to what an unconfirmed unlock left
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':1', ARGV[5], 'px', ARGV[1])
    if ARGV[6] ~= '0' then
        redis.call('hdel', KEYS[4], ARGV[2])
    end
    lease_lock()
    return nil
end
if ARGV[6] == '2' then
    if redis.call('hdel', KEYS[4], ARGV[2]) == 0 and mode == 'read'
            and (held or redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
        -- out of the hall, and in the lock: a grant (a waiting reader held nothing), held once
        local hold = tonumber(redis.call('hget', KEYS[1], ARGV[2]))
        if redis.call('pexpire', KEYS[2] .. ':' .. hold, ARGV[1]) == 0 then
            -- its lease key lapsed, the field is still there: the hold is the reader's again
            redis.call('set', KEYS[2] .. ':' .. hold, ARGV[5], 'px', ARGV[1])
        end
        lease_lock()
        return nil
    end
end
local hold = 1
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read', ARGV[2], 1)
else
    hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
end
redis.call('set', KEYS[2] .. ':' .. hold, hold == 1 and ARGV[5] or 1, 'px', ARGV[1])
lease_lock()
return nil
