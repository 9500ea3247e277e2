-- fair_release: drop one hold of a fair lock; the last one deletes it and wakes only the first
-- waiter in line.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue, redisson_lock_queue:{<name>}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{<name>}
-- KEYS[4]  the unlock channel, redisson_lock__channel:{<name>}; a waiter listens on
--          KEYS[4]:<its owner field>
-- KEYS[5]  the holders' since, padlock_since:{<name>}: re-armed with the lock, deleted with it
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  lease in milliseconds to re-arm after an inner release; 0 keeps the current TTL
-- ARGV[3]  owner field, <clientId>:<threadId>
-- ARGV[4]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  nil when ARGV[3] does not hold the lock (nothing is changed),
--          0 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          1 + N when this was the last hold: the key is deleted and ARGV[1] published on the
--          first live waiter's channel, reaching N subscribers (0 when nobody waits).
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if remaining > 0 then
    if tonumber(ARGV[2]) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        redis.call('pexpire', KEYS[5], ARGV[2])
    end
    return 0
end
redis.call('del', KEYS[1], KEYS[5])
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
while true do
    local first = redis.call('lindex', KEYS[2], 0)
    if not first then
        return 1
    end
    local deadline = redis.call('zscore', KEYS[3], first)
    if deadline and tonumber(deadline) > now then
        return 1 + redis.call(ARGV[4], KEYS[4] .. ':' .. first, ARGV[1])
    end
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], first)
end
