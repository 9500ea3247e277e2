-- shedlock_lock: take a ShedLock job's lock when nobody holds it.
--
-- KEYS[1]  the job's lock key, <keyPrefix><name>
-- ARGV[1]  this hold's token, <clientId>:<sequence>
-- ARGV[2]  lockAtMostFor left, in milliseconds (at least 1): the key's lease
--
-- Returns  1 when the key was set (the caller holds the job's lock), 0 when it exists
--          (another hold, or a lockAtLeastFor that has not run out). Publishes nothing.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
return 0
