-- fair_release: drop one hold of a fair lock; the last one passes the lock to the first live
-- place in line, in this same call.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}: re-armed with the lock, deleted with it
-- ARGV[1]  lease in milliseconds to re-arm after an inner release; 0 keeps the current TTL
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[4]  1 when PUBLISH's count says who heard a grant, 0 when it cannot (see fair_acquire)
-- A place's client listens for grants on padlock_grant:{<name>}:<clientId> (without the braces
-- when the name has one).
--
-- Returns  nil when ARGV[2] does not hold the lock (nothing is changed),
--          0 when holds remain (the lease is re-armed when ARGV[2] > 0),
--          -1 when this was the last hold and the lock went to the first place in line whose
--             client heard the grant: that owner now holds it once, with the grant lease of its
--             place, and "f:<threadId>:<nonce>:<name>" went to its client's grant channel,
--          1 when this was the last hold and nobody alive is in line: the lock is deleted.
-- Places whose client nobody listens for (a client that is gone) are dropped on the way. The
-- grantee holds the lock for its grant lease until it sets its own lease (a third of the way in).
--
-- Calls: a last hold granted to the next place: EVALSHA, HINCRBY, DEL, LPOP, HSET, PEXPIRE,
-- PUBLISH (7).
-- HINCRBY first, undone at once when the owner had no field: one call less than HEXISTS first
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining < 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
    return nil
end
if remaining > 0 then
    if tonumber(ARGV[1]) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[1])
        redis.call('pexpire', KEYS[3], ARGV[1])
    end
    return 0
end
redis.call('del', KEYS[1], KEYS[3])
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
            return -1
        end
        redis.call('del', KEYS[1])
    end
    place = redis.call('lpop', KEYS[2])
end
return 1
