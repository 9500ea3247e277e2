-- shedlock_unlock: end a ShedLock hold, keeping the key for what is left of lockAtLeastFor.
--
-- KEYS[1]  the job's lock key, <keyPrefix><name>
-- ARGV[1]  the hold's token
-- ARGV[2]  lockAtLeastFor left, in milliseconds; 0 or less deletes the key now
--
-- Returns  1 when the key held ARGV[1] (it is deleted, or its lease cut to ARGV[2]),
--          0 when it did not (expired, or another hold's): nothing is changed.
--          Publishes nothing.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
if tonumber(ARGV[2]) > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
else
    redis.call('del', KEYS[1])
end
return 1
