-- shedlock_extend: move a live ShedLock hold to a new token and a new lease.
--
-- KEYS[1]  the job's lock key, <keyPrefix><name>
-- ARGV[1]  the hold's token now
-- ARGV[2]  the new hold's token (the old one no longer unlocks or extends)
-- ARGV[3]  the new lockAtMostFor, in milliseconds (at least 1)
--
-- Returns  1 when the key held ARGV[1] (it now holds ARGV[2] with lease ARGV[3]),
--          0 when it did not (expired, unlocked, or another hold's): nothing is changed.
--          Publishes nothing.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
