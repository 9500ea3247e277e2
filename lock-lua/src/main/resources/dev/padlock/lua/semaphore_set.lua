-- semaphore_set: set a counting semaphore's number of permits, when it has none set.
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's RSemaphore format)
-- KEYS[2]  its channel, redisson_sc:{<name>}
-- ARGV[1]  the number of permits
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the count was set (and published, so that waiters look), 0 when one was set
--          already (nothing changed).
-- The key never expires: it is the semaphore, as in Redisson's format.
if redis.call('get', KEYS[1]) == false then
    redis.call('set', KEYS[1], ARGV[1])
    if ARGV[2] == 'spublish' then
        pcall(redis.call, 'spublish', KEYS[2], ARGV[1])
    else
        pcall(redis.call, 'publish', KEYS[2], ARGV[1])
    end
    return 1
end
return 0
