-- semaphore_add: add permits to a counting semaphore (or, with a negative number, remove them).
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's RSemaphore format)
-- KEYS[2]  its channel, redisson_sc:{<name>}
-- ARGV[1]  permits to add, not 0; negative to remove (the count may go below 0: permits in use
--          then come back before anyone gets one)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  the count of free permits now. A count that was never set starts from 0.
-- Publishes the count now on KEYS[2], as Redisson does.
local value = redis.call('incrby', KEYS[1], ARGV[1])
if ARGV[2] == 'spublish' then
    pcall(redis.call, 'spublish', KEYS[2], value)
else
    pcall(redis.call, 'publish', KEYS[2], value)
end
return value
