-- lock_handoff: pass a reentrant lock from its holder to a waiting owner of the same client,
-- in one call and without waking anyone: the successor's field replaces the holder's.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the holders' since, padlock_since:{<name>}: re-armed after an inner release; a
--          hand-off leaves it as it is, so it keeps when this client got the lock
-- ARGV[1]  the successor's lease in milliseconds (PEXPIRE)
-- ARGV[2]  the holder's field, <clientId>:<threadId>
-- ARGV[3]  the successor's field, <clientId>:<threadId>
-- ARGV[4]  lease in milliseconds to re-arm when the holder still has holds; 0 keeps the TTL
--
-- Returns  nil when ARGV[2] does not hold the lock (nothing is changed),
--          0 when the holder had more than one hold: one is dropped, nothing is handed over,
--          2 when handed over: ARGV[2] is gone, ARGV[3] holds it once, the lease is ARGV[1].
-- Publishes nothing: no other client is woken, since the lock stays taken.
-- Five Redis calls a hand-off (with this EVALSHA): the cost of a turn inside one client.
-- sets a TTL of at least ms on key, never a shorter one than it has, so a hold whose own lease is
-- longer keeps it: PEXPIRE GT (Redis 7), else (no GT on 6.2; or no TTL, which GT takes for the
-- longest) what PTTL says
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if not ok or set == 0 then
        local ttl = redis.call('pttl', key)
        if ttl == -1 or (ttl >= 0 and ttl < tonumber(ms)) then
            redis.call('pexpire', key, ms)
        end
    end
end
local holds = redis.call('hget', KEYS[1], ARGV[2])
if holds == false then
    return nil
end
if tonumber(holds) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], -1)
    if tonumber(ARGV[4]) > 0 then
        extend(KEYS[1], ARGV[4])
        extend(KEYS[2], ARGV[4])
    end
    return 0
end
redis.call('hdel', KEYS[1], ARGV[2])
redis.call('hset', KEYS[1], ARGV[3], 1)
redis.call('pexpire', KEYS[1], ARGV[1])
return 2
