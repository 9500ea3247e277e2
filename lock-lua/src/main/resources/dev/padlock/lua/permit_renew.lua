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
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = redis.call('zscore', KEYS[1], ARGV[1])
if ends == false or tonumber(ends) <= now then
    return 0
end
redis.call('zadd', KEYS[1], 'GT', now + tonumber(ARGV[2]), ARGV[1])
return 1
