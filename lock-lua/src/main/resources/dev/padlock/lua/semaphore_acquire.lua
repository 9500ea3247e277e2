-- semaphore_acquire: take permits from a counting semaphore when enough are free.
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's RSemaphore format)
-- ARGV[1]  permits to take, at least 1
--
-- Returns  1 when they were taken (the count is lower by ARGV[1]), 0 when fewer are free (or the
--          count was never set), and nothing changed.
-- Publishes nothing. Redisson's RSemaphore takes permits with the same two calls (GET, DECRBY).
local value = redis.call('get', KEYS[1])
if value ~= false and tonumber(value) >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    return 1
end
return 0
