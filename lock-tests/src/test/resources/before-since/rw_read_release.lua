-- rw_read_release: drop one read hold; when no reader and no writer is left, delete the lock and
-- wake every waiter.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}
-- KEYS[3]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- KEYS[4]  the readers' lease base, {<name>}
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  reader field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when ARGV[2] holds no read lock, or its every hold's lease is over (its field is
--          dropped then),
--          0 when holds of this reader remain,
--          1 + N when this was its last hold; N is how many subscribers ARGV[1] reached when the
--          lock became free (0 while other readers or the writer hold it; their longest lease
--          becomes the hash's TTL).
local holds = tonumber(redis.call('hget', KEYS[1], ARGV[2]))
if not holds then
    return nil
end
local released = redis.call('del', KEYS[3] .. ':' .. holds) == 1
if not released then
    for n = holds - 1, 1, -1 do
        if redis.call('exists', KEYS[3] .. ':' .. n) == 1 then
            released = true
            break
        end
    end
end
if released and holds > 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], -1)
    return 0
end
redis.call('hdel', KEYS[1], ARGV[2])

local result = released and 1 or nil
if redis.call('hget', KEYS[1], 'mode') == 'write' then
    return result
end
local longest = 0
for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
    if field ~= 'mode' then
        local alive = false
        for n = tonumber(redis.call('hget', KEYS[1], field)), 1, -1 do
            local ttl = redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. n)
            if ttl > 0 then
                alive = true
                longest = math.max(longest, ttl)
            end
        end
        if not alive then
            redis.call('hdel', KEYS[1], field)
        end
    end
end
if longest > 0 then
    redis.call('pexpire', KEYS[1], longest)
    return result
end
redis.call('del', KEYS[1])
local woken = redis.call(ARGV[3], KEYS[2], ARGV[1])
return released and 1 + woken or nil
