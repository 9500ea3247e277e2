-- permit_renew: extend the lease of one permit of a permit-expirable semaphore, while it holds.
--
-- KEYS[1]  its leases, {<name>}:timeout: a sorted set, permit id -> the epoch ms its lease ends
-- ARGV[1]  the permit id
-- ARGV[2]  the lease in milliseconds, from Redis TIME now; never shortens a longer one
--
-- Returns  1 when the lease held and now ends no earlier than TIME + ARGV[2], 0 when it did not
--          hold (its id is not there, or its lease had ended: lost; the next call of another
--          script gives its permit back).
-- Publishes nothing.
-- TIME is not deterministic, so the writes after it replicate as their effects (the default since
-- Redis 5, asked for on a 6.x server set up for verbatim replication).
if redis.replicate_commands then
    redis.replicate_commands()
end
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ends = redis.call('zscore', KEYS[1], ARGV[1])
if ends == false or tonumber(ends) <= now then
    return 0
end
redis.call('zadd', KEYS[1], 'GT', now + tonumber(ARGV[2]), ARGV[1])
return 1
