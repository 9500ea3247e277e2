-- lock_renew: extend the leases of locks this client still holds, many in one call.
--
-- KEYS[2i-1] a lock hash, for i = 1..n (all in one Cluster slot when run on a Cluster)
-- KEYS[2i]   that lock's holders' since, padlock_since:{<name>}; its lease is set with the lock's
-- ARGV[1]    lease in milliseconds to set on every lock still held (never shortening a longer TTL:
--            a fixed lease of the same owner that is longer stays)
-- ARGV[i+1]  the owner field, <clientId>:<threadId>, expected to hold KEYS[2i-1]
--
-- Returns  an array of n integers: 1 where KEYS[2i-1] was still held by ARGV[i+1]
--          and its lease was set, 0 where it was not (the lease was lost).
-- Publishes nothing.
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
local renewed = {}
for i = 1, #ARGV - 1 do
    if redis.call('hexists', KEYS[2 * i - 1], ARGV[i + 1]) == 1 then
        extend(KEYS[2 * i - 1], ARGV[1])
        extend(KEYS[2 * i], ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
