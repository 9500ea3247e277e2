-- fair_force_release: delete a fair lock whoever holds it and wake the first waiter in line.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue, redisson_lock_queue:{<name>}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{<name>} (unused; named for Cluster routing)
-- KEYS[4]  the unlock channel, redisson_lock__channel:{<name>}
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock existed (it is deleted), 0 otherwise.
-- Publishes ARGV[1] on KEYS[4]:<field> of the first waiter, when there is one.
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
local first = redis.call('lindex', KEYS[2], 0)
if first then
    redis.call(ARGV[2], KEYS[4] .. ':' .. first, ARGV[1])
end
return 1
