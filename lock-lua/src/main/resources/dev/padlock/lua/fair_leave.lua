-- fair_leave: take a waiter that gave up out of a fair lock's queue; when it was first in line
-- and the lock is free, wake the next one.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue, redisson_lock_queue:{<name>}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{<name>}
-- KEYS[4]  the unlock channel, redisson_lock__channel:{<name>}
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  the waiter's owner field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the waiter was queued (it is removed), 0 otherwise.
-- Publishes ARGV[1] on KEYS[4]:<field> of the new first waiter when the lock is free.
local wasFirst = redis.call('lindex', KEYS[2], 0) == ARGV[2]
local removed = redis.call('lrem', KEYS[2], 0, ARGV[2])
redis.call('zrem', KEYS[3], ARGV[2])
if wasFirst and redis.call('exists', KEYS[1]) == 0 then
    local next = redis.call('lindex', KEYS[2], 0)
    if next then
        redis.call(ARGV[3], KEYS[4] .. ':' .. next, ARGV[1])
    end
end
return removed > 0 and 1 or 0
