-- permit_release: give back the permit of one lease of a permit-expirable semaphore.
--
-- KEYS[1]  the semaphore: a string, the number of free permits
-- KEYS[2]  its leases, {<name>}:timeout: a sorted set, permit id -> the epoch ms its lease ends
-- KEYS[3]  its channel, redisson_sc:{<name>}
-- ARGV[1]  the permit id
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lease held (its permit is back and the count published), 0 when it did
--          not: its id is not there, or its lease had ended (the permit is back all the same, as
--          every script gives back ended leases).
-- TIME is not deterministic, so the writes after it replicate as their effects (the default since
-- Redis 5, asked for on a 6.x server set up for verbatim replication).
if redis.replicate_commands then
    redis.replicate_commands()
end
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ends = redis.call('zscore', KEYS[2], ARGV[1])
if ends == false then
    return 0
end
redis.call('zrem', KEYS[2], ARGV[1])
local value = redis.call('incrby', KEYS[1], 1)
if ARGV[2] == 'spublish' then
    pcall(redis.call, 'spublish', KEYS[3], value)
else
    pcall(redis.call, 'publish', KEYS[3], value)
end
if tonumber(ends) <= now then
    return 0
end
return 1
