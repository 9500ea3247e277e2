-- semaphore_drain: take every free permit of a counting semaphore.
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's RSemaphore format)
-- ARGV     none
--
-- Returns  the number of permits taken: the count before (0 when it was never set, or not
--          positive, which is left as it is); the count is 0 after, when it was positive.
-- Publishes nothing.
local value = tonumber(redis.call('get', KEYS[1]) or '0')
if value > 0 then
    redis.call('set', KEYS[1], 0)
    return value
end
return 0
