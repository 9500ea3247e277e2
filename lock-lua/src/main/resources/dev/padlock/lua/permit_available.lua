-- permit_available: the free permits of a permit-expirable semaphore, once ended leases are back.
--
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  its leases, {<name>}:timeout: a sorted set, permit id -> the epoch ms its lease ends
-- KEYS[3]  its channel, redisson_sc:{<name>}
-- ARGV[1]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  the count of free permits (0 when none was ever set), after giving back the permits
--          whose lease ended (Redis TIME), publishing the count when some came back.
-- TIME is not deterministic, so the writes after it replicate as their effects (the default since
-- Redis 5, asked for on a 6.x server set up for verbatim replication).
if redis.replicate_commands then
    redis.replicate_commands()
end
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('zrangebyscore', KEYS[2], 0, now)
if #expired > 0 then
    redis.call('zrem', KEYS[2], unpack(expired))
    local value = redis.call('incrby', KEYS[1], #expired)
    if ARGV[1] == 'spublish' then
        pcall(redis.call, 'spublish', KEYS[3], value)
    else
        pcall(redis.call, 'publish', KEYS[3], value)
    end
    return value
end
return tonumber(redis.call('get', KEYS[1]) or '0')
