--!df flags=allow-undeclared-keys
-- rw_read_renew: extend the leases of read locks this client still holds, many in one call.
--
-- KEYS[3i-2]  a read-write lock hash, for i = 1..n (all in one Cluster slot when on a Cluster)
-- KEYS[3i-1]  the reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- KEYS[3i]    that lock's holders' since, padlock_since:{<name>}; it lives as long as the hash
-- ARGV[1]     lease in milliseconds: every live hold of each reader gets a TTL of at least this,
--             never a shorter one than it has (a longer fixed lease keeps its own)
-- ARGV[i+1]   the reader field, <clientId>:<threadId>
--
-- Keys not in KEYS: each reader's hold keys, its lease prefix followed by :n, n up to its count
--          in the hash, which only this script reads (Redisson's format keeps one key a hold).
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  an array of n integers: 1 where the reader still had a live hold (its holds' leases
--          are at least ARGV[1], and the hash lives at least as long), 0 where it did not (the
--          lease was lost).
-- Publishes nothing. Only this reader's leases move: other readers keep their own.
local lease = tonumber(ARGV[1])
-- sets a TTL of at least ms on a hold's lease key, never a shorter one: PEXPIRE GT (Redis 7), else
-- what PTTL says; false when the key is gone (that hold's lease ran out)
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if ok and set == 1 then
        return true
    end
    local ttl = redis.call('pttl', key)
    if ttl == -2 then
        return false
    end
    if ttl == -1 or ttl < ms then
        redis.call('pexpire', key, ms)
    end
    return true
end
local renewed = {}
for i = 1, #ARGV - 1 do
    local hash, prefix, since = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
    local holds = tonumber(redis.call('hget', hash, ARGV[i + 1]))
    renewed[i] = 0
    if holds then
        for n = 1, holds do
            if extend(prefix .. ':' .. n, lease) then
                renewed[i] = 1
            end
        end
    end
    if renewed[i] == 1 then
        local ttl = math.max(redis.call('pttl', hash), lease)
        redis.call('pexpire', hash, ttl)
        redis.call('pexpire', since, ttl)
    end
end
return renewed
