-- permit_acquire: take one permit of a permit-expirable semaphore as a lease with an id.
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's
--          RPermitExpirableSemaphore format)
-- KEYS[2]  its leases, {<name>}:timeout: a sorted set, permit id -> the epoch ms its lease ends
-- KEYS[3]  its channel, redisson_sc:{<name>}
-- ARGV[1]  the lease in milliseconds
-- ARGV[2]  the permit id (32 hex digits, as Redisson's)
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  -1 when the permit was taken: ARGV[2] is in KEYS[2] until Redis TIME + ARGV[1];
--          otherwise the milliseconds until the nearest lease ends (-2 when none ends: no lease,
--          or only Redisson's leases without expiry), when its permit comes back.
-- First gives back the permits whose lease ended (Redis TIME), publishing the count when some
-- came back, as Redisson's scripts do. Times are the server's, so no client clock matters.
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
    if ARGV[3] == 'spublish' then
        pcall(redis.call, 'spublish', KEYS[3], value)
    else
        pcall(redis.call, 'publish', KEYS[3], value)
    end
end
local value = redis.call('get', KEYS[1])
if value ~= false and tonumber(value) >= 1 then
    redis.call('decrby', KEYS[1], 1)
    redis.call('zadd', KEYS[2], now + tonumber(ARGV[1]), ARGV[2])
    return -1
end
local nearest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
-- Redisson's leases without expiry end at 922337203685477
if nearest[2] ~= nil and tonumber(nearest[2]) < 922337203685477 then
    return math.max(0, tonumber(nearest[2]) - now)
end
return -2
