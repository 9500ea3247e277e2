-- fair_acquire: take a fair lock when it is free and this owner is first in line, re-enter it,
-- or take (or keep) a place in the queue.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count (RLock's format)
-- KEYS[2]  the queue: a list of owner fields, first come first, redisson_lock_queue:{<name>}
-- KEYS[3]  the waiters' deadlines: a sorted set, owner field -> Redis time in ms after which
--          the waiter is dropped, redisson_lock_timeout:{<name>}
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  how long past the lock's current lease a waiter keeps its place without checking in (ms)
-- ARGV[4]  1 to queue the owner when it does not get the lock, 0 for a one-shot attempt
--
-- Returns  nil when acquired (first hold or re-entry; the lease is re-armed), otherwise how long
--          to wait at most before the next attempt (ms): the lock's PTTL when it has one, else
--          at most half of ARGV[3], so that waiters check in well before they are dropped.
-- Publishes nothing. Waiters at the head of the queue whose deadline passed are dropped first.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
while true do
    local first = redis.call('lindex', KEYS[2], 0)
    if not first then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], first)
    if deadline and tonumber(deadline) > now then
        break
    end
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], first)
end

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
local first = redis.call('lindex', KEYS[2], 0)
if redis.call('exists', KEYS[1]) == 0 and (not first or first == ARGV[2]) then
    if first then
        redis.call('lpop', KEYS[2])
        redis.call('zrem', KEYS[3], ARGV[2])
    end
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

local patience = tonumber(ARGV[3])
local ttl = redis.call('pttl', KEYS[1])
if ARGV[4] == '1' then
    if not redis.call('zscore', KEYS[3], ARGV[2]) then
        redis.call('rpush', KEYS[2], ARGV[2])
    end
    redis.call('zadd', KEYS[3], now + math.max(ttl, 0) + patience, ARGV[2])
end
if ttl > 0 then
    return ttl
end
local wait = math.max(1, math.floor(patience / 2))
if ttl == -2 and first then
    -- free, and an earlier waiter was woken to take it: look again when its place would lapse
    local deadline = redis.call('zscore', KEYS[3], first)
    if deadline then
        wait = math.max(1, math.min(wait, tonumber(deadline) - now))
    end
end
return wait
