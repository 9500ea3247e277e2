-- multi_acquire: take every lock of a multi lock for one owner in one call, all of them or none.
--
-- KEYS[2i-1] a lock, for i = 1..n: a hash of <clientId>:<threadId> -> hold count (all in one
--            Cluster slot when run on a Cluster)
-- KEYS[2i]   that lock's holders' since, padlock_since:{<name>} (see lock_since): a re-entry
--            re-arms it with the lock, as lock_acquire does
-- ARGV[1]    lease in milliseconds (PEXPIRE)
-- ARGV[2]    owner field, <clientId>:<threadId>
-- ARGV[3]    1: claims, as lock_claim: the owner holds none of the locks as its client knows, so a
--            field of the owner found is a count left behind (an unlock that could not be
--            confirmed) and its new hold count is 1, the lease set to ARGV[1]; the call may be
--            sent again safely. 0: re-entries, as lock_acquire: a field of the owner found counts
--            one more hold, and its TTL is at least ARGV[1], never shortened
--
-- Returns  nil when the owner now holds every lock (each free one taken with a hold count of 1
--          and lease ARGV[1]); otherwise {i, pttl}: KEYS[2i-1], the first lock held by another
--          owner, and its PTTL in milliseconds (-1 when it has no expiry), and nothing is written.
-- Publishes nothing.
--
-- Every lock is looked at before any is written, so a call that does not take them all changes
-- nothing. Each hold is Redisson's RLock format, as lock_claim and lock_acquire write it.
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
local n = #KEYS / 2
for i = 1, n do
    local lock = KEYS[2 * i - 1]
    if redis.call('exists', lock) == 1 and redis.call('hexists', lock, ARGV[2]) == 0 then
        return {i, redis.call('pttl', lock)}
    end
end
for i = 1, n do
    local lock = KEYS[2 * i - 1]
    if ARGV[3] == '1' or redis.call('exists', lock) == 0 then
        redis.call('hset', lock, ARGV[2], 1)
        redis.call('pexpire', lock, ARGV[1])
    else
        redis.call('hincrby', lock, ARGV[2], 1)
        extend(lock, ARGV[1])
        extend(KEYS[2 * i], ARGV[1])
    end
end
return nil
