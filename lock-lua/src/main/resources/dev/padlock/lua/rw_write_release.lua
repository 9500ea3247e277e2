-- rw_write_release: drop one write hold; the last one frees the lock, or leaves it to this
-- owner's read holds (a downgrade), and wakes who can get in: the readers that wait (then it is
-- their turn), or else the first live writer in line, or, with nobody in line, every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  the writer's since, padlock_since:{<name>}: the writer's entry goes, the hash takes
--          the lock's TTL and is deleted with it
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>} (see rw_read_acquire)
-- KEYS[5]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[6]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): a readers' turn opens it
--          until now + ARGV[5]
-- KEYS[7]  waiting readers, padlock_rw_readers:{<name>} (set by refused readers)
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release; 0 keeps the current TTL
-- ARGV[3]  writer field, <clientId>:<threadId>:write
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[5]  the readers' turn in milliseconds
-- ARGV[6]  the writers' line deadline in milliseconds
--
-- Returns  nil when ARGV[3] does not hold the write lock (nothing is changed),
--          0 when write holds remain (the lease is re-armed when ARGV[2] > 0),
--          1 + N when this was the last write hold; N is how many subscribers ARGV[1] reached on
--          the shared channel (0 when the first live writer in line was woken on its own).
-- With writers in line and readers waiting (KEYS[7]), the readers' turn (KEYS[6] set to now + ARGV[5])
-- lets the woken readers in before the next writer, which the last of them wakes as it leaves;
-- so readers and writers alternate, and neither starves the other.
--
-- Calls: the last hold, nobody in line: EVALSHA, HINCRBY, HDEL, HLEN, DEL, LINDEX, DEL, PUBLISH
-- (8); readers waiting and writers in line: + TIME, SET (10); only writers in line: EVALSHA,
-- HINCRBY, HDEL, HLEN, DEL, LINDEX, DEL, TIME, ZSCORE, PUBLISH (10).
-- HINCRBY first, undone at once when the owner had no field: one call less than HEXISTS first
local remaining = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[3])
    return nil
end
if remaining > 0 then
    if tonumber(ARGV[2]) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        redis.call('pexpire', KEYS[3], ARGV[2])
    end
    return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
local free = redis.call('hlen', KEYS[1]) <= 1
if free then
    redis.call('del', KEYS[1], KEYS[3])
else
    -- downgraded: this owner's read holds keep the lock (the hash already lives as long as their
    -- leases), and other readers may now join
    redis.call('hdel', KEYS[3], ARGV[3])
    redis.call('hset', KEYS[1], 'mode', 'read')
end
local head = redis.call('lindex', KEYS[4], 0)
local readers = redis.call('del', KEYS[7]) == 1
if head then
    local t = redis.call('time')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    if readers then
        redis.call('set', KEYS[6], now + tonumber(ARGV[5]), 'px', ARGV[6])
        head = nil
    elseif not free then
        head = nil
    end
    while head do
        local deadline = tonumber(redis.call('zscore', KEYS[5], head))
        if deadline and deadline > now then
            redis.call(ARGV[4], KEYS[2] .. ':' .. head, ARGV[1])
            return 1
        end
        redis.call('lpop', KEYS[4])
        redis.call('zrem', KEYS[5], head)
        head = redis.call('lindex', KEYS[4], 0)
        if not head then
            redis.call('del', KEYS[6])
        end
    end
end
return 1 + redis.call(ARGV[4], KEYS[2], ARGV[1])
