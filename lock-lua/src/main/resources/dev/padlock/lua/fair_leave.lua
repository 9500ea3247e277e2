-- fair_leave: take the place of a waiter that gave up out of a fair lock's line. A grant that
-- reached it meanwhile is passed on; so is a free lock when nobody holds it.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}
-- ARGV[1]  the waiter's owner field, <clientId>:<threadId>
-- ARGV[2]  the waiter's place
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[4]  1 when PUBLISH's count says who heard a grant, 0 when it cannot (see fair_acquire)
--
-- Returns  2 when the waiter's field was in the lock (a grant that came as it gave up: it did
--          not hold when it got in line): the lock went on to the next live place, or was deleted;
--          1 when its place was in line (it is removed), 0 otherwise.
local removed = redis.call('lrem', KEYS[2], 0, ARGV[2])
local granted = redis.call('hexists', KEYS[1], ARGV[1]) == 1
if granted then
    redis.call('del', KEYS[1], KEYS[3])
elseif removed == 0 or redis.call('exists', KEYS[1]) == 1 then
    return removed > 0 and 1 or 0
end
-- the lock is free: the first live place gets it
local tag = string.find(KEYS[1], '{', 1, true) and KEYS[1] or ('{' .. KEYS[1] .. '}')
local grants = 'padlock_grant:' .. tag .. ':'
local place = redis.call('lpop', KEYS[2])
while place do
    local client, thread, lease, nonce = string.match(place, '^(.*):(%-?%d+):(%d+):(%d+)$')
    if client then
        redis.call('hset', KEYS[1], client .. ':' .. thread, 1)
        redis.call('pexpire', KEYS[1], lease)
        local heard = redis.call(ARGV[3], grants .. client, 'f:' .. thread .. ':' .. nonce .. ':' .. KEYS[1])
        if heard > 0 or ARGV[4] == '0' then
            break
        end
        redis.call('del', KEYS[1])
    end
    place = redis.call('lpop', KEYS[2])
end
return granted and 2 or 1
