-- fair_leave: take the place of a waiter that gave up out of a fair lock's line; when a grant
-- reached it meanwhile, it keeps that instead, with its own lease.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}
-- ARGV[1]  the waiter's owner field, <clientId>:<threadId>
-- ARGV[2]  the waiter's place
-- ARGV[3]  the waiter's lease in milliseconds
--
-- Returns  1 when its place was in line (it is removed: no grant reached it);
--          2 when the place was out of line and the waiter's field is in the lock: a grant that
--          came as it gave up (it did not hold when it took its place, and its client runs one
--          wait with a place per owner), which it now holds once with a TTL of at least ARGV[3] (never
--          shortened);
--          0 otherwise.
-- Publishes nothing. A lock left free with places behind goes on at the next attempt of any of
-- them (each looks again at least once a look interval: see fair_acquire).
-- sets a TTL of at least ms on key, never a shorter one than it has (the owner may hold the lock
-- through another acquisition, whose lease stays): PEXPIRE GT (Redis 7), else what PTTL says
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if not ok or set == 0 then
        local ttl = redis.call('pttl', key)
        if ttl == -1 or (ttl >= 0 and ttl < tonumber(ms)) then
            redis.call('pexpire', key, ms)
        end
    end
end
if redis.call('lrem', KEYS[2], 0, ARGV[2]) > 0 then
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    extend(KEYS[1], ARGV[3])
    extend(KEYS[3], ARGV[3])
    return 2
end
return 0
