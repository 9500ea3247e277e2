-- floor_release: the bench's floor releases a hold taken by floor_acquire.lua, in the format of
-- Redisson's RLock. Benchmarks only.
--
-- KEYS[1]  the lock, a hash: <owner field> -> hold count
-- KEYS[2]  the lock's channel, redisson_lock__channel:{<lock name>}
-- ARGV[1]  the lease in milliseconds, re-armed while holds remain
-- ARGV[2]  the owner field, <client uuid>:<thread id>
--
-- Returns  0 when holds remain (the lease re-armed); 1 when the last hold was released (the
--          key deleted: HINCRBY, DEL, PUBLISH); nil when ARGV[2] held nothing (the field that
--          HINCRBY made, at -1, removed again).
-- Publishes "0" on KEYS[2] when the last hold is released.
local count = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if count > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
if count == 0 then
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], '0')
    return 1
end
redis.call('hdel', KEYS[1], ARGV[2])
return nil
