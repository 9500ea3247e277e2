-- fair_settle: note when an owner that got a fair lock by a grant (see fair_release) got it: its
-- "since", which the grant did not write. Only a note for padlock show: the grant already set the
-- lease the owner asked for, and this call never touches the lock's lease.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the holders' since, padlock_since:{<name>} (see lock_claim)
-- ARGV[1]  the owner field, <clientId>:<threadId>
-- ARGV[2]  milliseconds since the grant, as the owner measured it from the grant's message
--
-- Returns  1 when the owner holds the lock, the lock has a positive TTL and the owner had no since
--          (it is written, and the since hash expires with the lock), 0 otherwise.
-- Publishes nothing. "Since" is Redis TIME less ARGV[2], in epoch milliseconds; TIME is not
-- deterministic, so the writes after it replicate as their effects.
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 or redis.call('hexists', KEYS[2], ARGV[1]) == 1 then
    return 0
end
local ttl = redis.call('pttl', KEYS[1])
if ttl <= 0 then
    return 0
end
local t = redis.call('time')
local since = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[2])
redis.call('hset', KEYS[2], ARGV[1], string.format('%d', since))
redis.call('pexpire', KEYS[2], ttl)
return 1
