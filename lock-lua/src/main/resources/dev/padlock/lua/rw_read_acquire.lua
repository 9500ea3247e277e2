-- rw_read_acquire: take or re-enter the read lock of a read-write lock; a new reader yields to
-- writers waiting in line, except during the readers' turn that follows a write.
--
-- KEYS[1]  the lock: a hash with field mode = read|write, one field per reader
--          <clientId>:<threadId> -> hold count, and the writer's <clientId>:<threadId>:write
-- KEYS[2]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout; hold n
--          has its own lease, the key KEYS[2]:n. The value of hold 1's key is the reader's since
--          (epoch ms, Redis TIME); Redisson only reads these keys' existence and TTL
-- KEYS[3]  the gate, padlock_rw_gate:{<name>}: present while writers wait in line (see
--          rw_write_acquire), its value the epoch ms (Redis TIME) from which new readers yield to
--          them; a later value is the readers' turn (see rw_write_release)
-- KEYS[4]  waiting readers, padlock_rw_readers:{<name>}: set (PX ARGV[4]) by a refused reader
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientId>:<threadId>:write
-- ARGV[4]  the writers' line deadline in milliseconds: how long a refused reader's mark lasts
--
-- Returns  nil when acquired: a re-entry, a downgrade (write mode held by this same owner), or a
--          first hold in read mode or on a free lock when the gate is open; otherwise how long to
--          wait at most (ms): the lock's PTTL in write mode, else the gate's (it goes with the
--          last writer in line, or when writers stop attempting).
-- Publishes nothing. The hash lives as long as its longest lease. Redisson's RReadWriteLock
-- format. Every refusal ends with PTTL of the lock, and no other run does (the benchmark counts
-- failed attempts so).
--
-- Calls: a first hold, no writer in line: EVALSHA, HGET, GET, HINCRBY, TIME, SET, PEXPIRE GT (7;
-- on Redis 6.2 PTTL and PEXPIRE instead, 8). A re-entry while no writer is in line: 6. Refused
-- while written: EVALSHA, HGET, HEXISTS, SET, PTTL (5); yielding to a writer: EVALSHA, HGET, GET,
-- TIME, HEXISTS, SET, PTTL, PTTL (8).
if redis.replicate_commands then
    redis.replicate_commands()
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    redis.call('set', KEYS[4], 1, 'px', ARGV[4])
    return redis.call('pttl', KEYS[1])
end
local now
local function clock()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local gate = mode ~= 'write' and redis.call('get', KEYS[3])
if gate then
    now = clock()
    if tonumber(gate) <= now and redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
        redis.call('set', KEYS[4], 1, 'px', ARGV[4])
        local closed = redis.call('pttl', KEYS[3]) -- the writers' deadline, at the latest
        redis.call('pttl', KEYS[1])
        return math.max(1, closed)
    end
end
local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
local value = 1
if hold == 1 then
    value = now or clock()
end
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('set', KEYS[2] .. ':' .. hold, value, 'px', ARGV[1])
if mode == false then
    redis.call('pexpire', KEYS[1], ARGV[1])
elseif not pcall(redis.call, 'pexpire', KEYS[1], ARGV[1], 'gt') then
    local lease = math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))
    redis.call('pexpire', KEYS[1], lease)
end
return nil
