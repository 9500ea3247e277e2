-- lock_since: note since when an owner has held a lock, for the padlock command, once its hold has
-- lasted: a hold taken without waiting writes nothing but the lock, so its client notes this later
-- (a hold released within that time never costs it).
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- KEYS[2]  the holders' since, padlock_since:{<name>}: a hash of owner field -> epoch ms
-- ARGV[1]  owner field, <clientId>:<threadId>
-- ARGV[2]  how long ago the hold began, in milliseconds, by the client's monotonic clock (from the
--          reply that told it it holds)
--
-- Returns  1 when the entry was written: Redis TIME minus ARGV[2], in epoch ms, so off by at most
--          the acquisition's round trip; 0 when ARGV[1] holds the lock no longer, or the lock has
--          no expiry to give the entry, or the owner has an entry already (a grant writes its
--          own, exact); nothing is written then.
-- The entry lives at least as long as the lock: the lock's TTL rounded up to the next second
-- (TTL, not PTTL: PTTL and HEXISTS are what refused acquisitions end with, which the benchmark
-- counts them by), never shortening a longer one; renewals, re-entries and the release keep the
-- two together. TIME is not deterministic, so the writes after it replicate as their effects
-- (the default since Redis 5, asked for on a 6.x server set up for verbatim replication).
if redis.replicate_commands then
    redis.replicate_commands()
end
if not redis.call('hget', KEYS[1], ARGV[1]) then
    return 0
end
local ttl = redis.call('ttl', KEYS[1])
if ttl < 0 then
    return 0
end
local t = redis.call('time')
local since = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[2])
-- a number argument goes to Redis as Lua prints it (%.14g): exact for 13-digit epoch milliseconds
if redis.call('hsetnx', KEYS[2], ARGV[1], since) == 0 then
    return 0
end
if redis.call('ttl', KEYS[2]) <= ttl then
    redis.call('pexpire', KEYS[2], (ttl + 1) * 1000)
end
return 1
