-- rw_read_release: drop one read hold; when no reader and no writer is left, delete the lock and
-- wake who can get in: the first live writer in line, or else every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>} (see rw_write_acquire)
-- KEYS[5]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[6]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): set again until the woken
--          writer's deadline, or gone with the last writer in line
-- KEYS[7]  the readers' turn, padlock_rw_turn:{<name>} (see rw_read_acquire): over when a writer
--          is woken
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when ARGV[2] holds no read lock, or its every hold's lease is over (its field is
--          dropped then),
--          0 when holds of this reader remain,
--          1 + N when this was its last hold; N is how many subscribers ARGV[1] reached on the
--          shared channel when the lock became free (0 while others hold it, or when the first
--          live writer in line was woken on its own channel instead).
-- Other readers are not looked at: the hash lives at least as long as the longest lease (see
-- rw_read_acquire), and readers that died are dropped by a writer's attempt (rw_write_acquire).
-- Writers in line whose deadline passed are dropped.
--
-- Calls: a hold that is not the last: EVALSHA, HINCRBY, DEL (3); a last hold beside other
-- holders: + HDEL, HLEN (5); the lock freed, nobody in line: + DEL, LINDEX, PUBLISH (8); the lock
-- freed with a writer in line: + DEL, LINDEX, TIME, ZSCORE, SET, DEL, PUBLISH (12).
-- HINCRBY first, undone at once when the owner had no field: one call less than HGET first
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
    return nil
end
local released = redis.call('del', KEYS[3] .. ':' .. (remaining + 1)) == 1
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
redis.call('del', KEYS[1])
local head = redis.call('lindex', KEYS[4], 0)
if head then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    while head do
        local deadline = tonumber(redis.call('zscore', KEYS[5], head))
        if deadline and deadline > now then
            -- new readers yield to the woken writer until its deadline
            redis.call('set', KEYS[6], 1, 'px', math.max(1, deadline - now))
            redis.call('del', KEYS[7])
            redis.call(ARGV[3], KEYS[2] .. ':' .. head, ARGV[1])
            return result
        end
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
    end
    redis.call('del', KEYS[6])
end
local woken = redis.call(ARGV[3], KEYS[2], ARGV[1])
return released and 1 + woken or nil
