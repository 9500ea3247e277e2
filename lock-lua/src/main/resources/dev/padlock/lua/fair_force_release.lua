-- fair_force_release: delete a fair lock whoever holds it and wake the first live waiter in line.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue, redisson_lock_queue:{<name>}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{<name>}
-- KEYS[4]  the unlock channel, redisson_lock__channel:{<name>}
-- KEYS[5]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock existed (it is deleted), 0 otherwise.
-- Publishes ARGV[1] on KEYS[4]:<field> of the first live waiter, when there is one and the lock
-- existed. Waiters at the head of the queue whose deadline passed (Redis TIME) are dropped first,
-- whether or not the lock existed, as fair_acquire and fair_release drop them.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local first = redis.call('lindex', KEYS[2], 0)
while first do
    local deadline = redis.call('zscore', KEYS[3], first)
    if deadline and tonumber(deadline) > now then
        break
    end
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], first)
    first = redis.call('lindex', KEYS[2], 0)
end
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
redis.call('del', KEYS[5])
if first then
    redis.call(ARGV[2], KEYS[4] .. ':' .. first, ARGV[1])
end
return 1
