-- rw_write_release: drop one write hold; the last one frees the lock, or leaves it to this
-- owner's read holds (a downgrade). Either way every waiter is woken.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}
-- KEYS[3]  the readers' lease base, {<name>}
-- KEYS[4]  the holders' since, padlock_since:{<name>}: the writer's entry goes, the hash takes
--          the lock's TTL and is deleted with it
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release; 0 keeps the current TTL
-- ARGV[3]  writer field, <clientId>:<threadId>:write
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when ARGV[3] does not hold the write lock (nothing is changed),
--          0 when write holds remain (the lease is re-armed when ARGV[2] > 0),
--          1 + N when this was the last write hold; ARGV[1] reached N subscribers.
if redis.call('hget', KEYS[1], 'mode') ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if remaining > 0 then
    if tonumber(ARGV[2]) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        redis.call('pexpire', KEYS[4], ARGV[2])
    end
    return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
redis.call('hdel', KEYS[4], ARGV[3])
local longest = 0
for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
    if field ~= 'mode' then
        local alive = false
        for n = tonumber(redis.call('hget', KEYS[1], field)), 1, -1 do
            local ttl = redis.call('pttl', KEYS[3] .. ':' .. field .. ':rwlock_timeout:' .. n)
            if ttl > 0 then
                alive = true
                longest = math.max(longest, ttl)
            end
        end
        if not alive then
            redis.call('hdel', KEYS[1], field)
            redis.call('hdel', KEYS[4], field)
        end
    end
end
if longest > 0 then
    -- downgraded: this owner's read holds keep the lock, and other readers may now join
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('pexpire', KEYS[1], longest)
    redis.call('pexpire', KEYS[4], longest)
else
    redis.call('del', KEYS[1], KEYS[4])
end
return 1 + redis.call(ARGV[4], KEYS[2], ARGV[1])
