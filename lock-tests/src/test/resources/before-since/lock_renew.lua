-- lock_renew: extend the leases of locks this client still holds, many in one call.
--
-- KEYS[i]    a lock hash, for i = 1..n (all in one Cluster slot when run on a Cluster)
-- ARGV[1]    lease in milliseconds to set on every lock still held
-- ARGV[i+1]  the owner field, <clientId>:<threadId>, expected to hold KEYS[i]
--
-- Returns  an array of n integers: 1 where KEYS[i] was still held by ARGV[i+1]
--          and its lease was set, 0 where it was not (the lease was lost).
-- Publishes nothing.
local renewed = {}
for i = 1, #KEYS do
    if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
