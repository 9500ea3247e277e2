-- semaphore_release: give permits back to a counting semaphore and tell its waiters.
--
-- KEYS[1]  the semaphore: a string, the number of free permits (Redisson's RSemaphore format)
-- KEYS[2]  its channel, redisson_sc:{<name>}
-- ARGV[1]  permits to give back, at least 1
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  an array: the count of free permits now, then how many subscribers heard it, or -1
--          when Redis refused the message (an ACL user without the channel: NOPERM; the permits
--          are back all the same, and waiters find them at their next look).
-- Publishes the count now on KEYS[2], as Redisson does: a waiter of either library wakes, and
-- each client wakes at most that many of its waiters.
local function pcall_publish(channel, message)
    if ARGV[2] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
local value = redis.call('incrby', KEYS[1], ARGV[1])
local ok, heard = pcall_publish(KEYS[2], value)
if ok then
    return {value, heard}
end
return {value, -1}
