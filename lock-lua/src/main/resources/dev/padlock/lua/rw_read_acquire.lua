-- rw_read_acquire: take or re-enter the read lock of a read-write lock; a new reader yields to a
-- live writer waiting in line, except during the readers' turn that follows a write.
--
-- KEYS[1]  the lock: a hash with field mode = read|write, one field per reader
--          <clientId>:<threadId> -> hold count, and the writer's <clientId>:<threadId>:write
-- KEYS[2]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout; hold n
--          has its own lease, the key KEYS[2]:n. The value of hold 1's key is the reader's since
--          (epoch ms, Redis TIME); Redisson only reads these keys' existence and TTL
-- KEYS[3]  the writers' line, padlock_rw_queue:{<name>}: a list of writer fields, first come first
-- KEYS[4]  the line's deadlines, padlock_rw_deadlines:{<name>}: a zset of writer field -> epoch ms
--          after which the writer counts as gone (each of its attempts moves it on)
-- KEYS[5]  the readers' turn, padlock_rw_turn:{<name>}: while it exists, new readers enter
--          despite writers in line (see rw_write_release)
-- KEYS[6]  waiting readers, padlock_rw_readers:{<name>}: set (PX ARGV[4]) by a refused reader
-- KEYS[7]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[7]:f
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientId>:<threadId>:write
-- ARGV[4]  the line's deadline in milliseconds (how long a refused reader's mark lasts)
-- ARGV[5]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when acquired: a re-entry, a downgrade (write mode held by this same owner), or a
--          first hold in read mode or on a free lock when no live writer is in line or it is the
--          readers' turn; otherwise how long to wait at most (ms): the lock's PTTL in write mode,
--          else the time until the first live writer's deadline.
-- Publishes "1" on the first live writer's channel only when it yields on a free lock (that
-- writer's wake-up may have been lost). Writers in line whose deadline passed are dropped. The
-- hash lives as long as its longest lease. Redisson's RReadWriteLock format. Every refusal ends
-- with PTTL of the lock, and no other run does (the benchmark counts failed attempts so).
--
-- Calls: a first hold in read mode, nobody in line: EVALSHA, HGET, HINCRBY, TIME, LINDEX, SET,
-- PEXPIRE GT (7; on Redis 6.2 PTTL and PEXPIRE instead, 8). A re-entry: 5. Refused while
-- written: EVALSHA, HGET, HEXISTS, SET, PTTL (5).
if redis.replicate_commands then
    redis.replicate_commands()
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    redis.call('set', KEYS[6], 1, 'px', ARGV[4])
    return redis.call('pttl', KEYS[1])
end
-- HINCRBY first: a re-entry needs nothing else, a refused first hold is undone
local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
local value = 1
if hold == 1 then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    if mode ~= 'write' then
        local head = redis.call('lindex', KEYS[3], 0)
        local deadline
        while head do
            deadline = tonumber(redis.call('zscore', KEYS[4], head))
            if deadline and deadline > now then
                break
            end
            redis.call('lpop', KEYS[3])
            redis.call('zrem', KEYS[4], head)
            head = redis.call('lindex', KEYS[3], 0)
        end
        if head and redis.call('exists', KEYS[5]) == 0 then
            if mode == false then
                redis.call('del', KEYS[1])
                redis.call(ARGV[5], KEYS[7] .. ':' .. head, '1')
            else
                redis.call('hdel', KEYS[1], ARGV[2])
            end
            redis.call('set', KEYS[6], 1, 'px', ARGV[4])
            redis.call('pttl', KEYS[1]) -- every refusal ends so, and no other run (see the header)
            return math.max(1, deadline - now)
        end
    end
    value = now
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
