-- fair_settle: an owner that got a fair lock by a grant (see fair_release) sets its own lease and
-- its "since", which the grant did not write, a third of the way into the grant lease.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the holders' since, padlock_since:{<name>} (see lock_claim)
-- ARGV[1]  the owner field, <clientId>:<threadId>
-- ARGV[2]  the owner's lease in milliseconds (the rest of it, for a fixed lease)
-- ARGV[3]  milliseconds since the grant, as the owner measured it from the grant's message
--
-- Returns  1 when the owner still holds the lock (lease and since are set), 0 when it does not.
-- Publishes nothing. "Since" is Redis TIME less ARGV[3], in epoch milliseconds; TIME is not
-- deterministic, so the writes after it replicate as their effects.
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
local t = redis.call('time')
local since = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[3])
redis.call('hset', KEYS[2], ARGV[1], string.format('%d', since))
redis.call('pexpire', KEYS[2], ARGV[2])
return 1
