-- fair_force_release: delete a fair lock whoever holds it and pass it to the first live place in
-- line, or, with nobody alive in line, wake the waiters on the unlock channel.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}: deleted with the lock
-- KEYS[4]  the unlock channel, redisson_lock__channel:{<name>}
-- ARGV[1]  unlock message to publish (0)
-- ARGV[2]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[3]  1 when PUBLISH's count says who heard a grant, 0 when it cannot (see fair_acquire)
--
-- Returns  1 when the lock existed (it is deleted, and granted as fair_release grants), 0 otherwise.
-- Places whose client nobody listens for are dropped on the way.
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
redis.call('del', KEYS[3])
local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
local grants = 'padlock_grant:' .. tag .. ':'
local place = redis.call('lpop', KEYS[2])
while place do
    local client, thread, lease, nonce = string.match(place, '^(.*):(%-?%d+):(%d+):(%d+)$')
    if client then
        redis.call('hset', KEYS[1], client .. ':' .. thread, 1)
        redis.call('pexpire', KEYS[1], lease)
        local heard = redis.call(ARGV[2], grants .. client, 'f:' .. thread .. ':' .. nonce .. ':' .. KEYS[1])
        if heard > 0 or ARGV[3] == '0' then
            return 1
        end
        redis.call('del', KEYS[1])
    end
    place = redis.call('lpop', KEYS[2])
end
redis.call(ARGV[2], KEYS[4], ARGV[1])
return 1
